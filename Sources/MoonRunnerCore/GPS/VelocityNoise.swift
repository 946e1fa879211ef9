/// How far the filtered velocity scatters from fix to fix: the noise a slow
/// walker's speed must be cleared of before it counts as distance.
///
/// An error across the direction of travel always lengthens a velocity,
/// |v + n| ≈ v + n∥ + n⊥²/(2v): with the simulated hikes' 0.09–0.10 m/s per
/// axis, +0.3 % of distance at 1.2 m/s and +3 % at 0.4 m/s. √(|v|² − σ²)
/// leaves it right to first order. σ² is read from consecutive changes
/// (E|Δv|² = 4σ²), through the median of the last nine so that a turn does not
/// move it: that median is 1/9 + … + 1/5 = 0.7456 of the mean of |Δv|²
/// (exponential for 2-D Gaussian noise). A receiver that smooths its velocity
/// makes the changes understate σ: less is cleared, never more than the noise.
/// O(1) state (a ring of nine, allocated once); times are the receiver's.
struct VelocityNoise: Sendable {
    private static let window = 9
    /// Mean of the middle of `window` draws of an exponential distribution of mean 1.
    private static let medianOfMean = 1.0 / 9 + 1.0 / 8 + 1.0 / 7 + 1.0 / 6 + 1.0 / 5
    /// Fixes further apart than this are not consecutive: the wearer had time to change pace, seconds.
    private static let consecutive = 1.5

    private var changes = [Double](repeating: 0, count: Self.window)
    private var count = 0
    private var next = 0
    private var last = (t: -Double.infinity, east: 0.0, north: 0.0)
    /// The velocity's noise variance per axis, m²/s²; 0 until nine changes have been seen.
    private(set) var variance = 0.0

    /// The filtered velocity (m/s per axis) after a fix with a Doppler velocity, at receiver time `t`.
    mutating func observe(east: Double, north: Double, at t: Double) {
        defer { last = (t, east, north) }
        let dt = t - last.t
        guard dt > 0, dt <= Self.consecutive else { return }
        let de = east - last.east, dn = north - last.north
        changes[next] = de * de + dn * dn
        next = (next + 1) % Self.window
        count = min(count + 1, Self.window)
        guard count == Self.window else { return }
        variance = median() / (4 * Self.medianOfMean)
    }

    /// The speed of a velocity with the noise across the track taken out, m/s.
    func speed(east: Double, north: Double) -> Double {
        (max(east * east + north * north - variance, 0)).squareRoot()
    }

    /// The middle of the ring: an insertion sort of a copy on the stack,
    /// about 20 comparisons for nine and no allocation.
    private func median() -> Double {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: Self.window) { sorted in
            for i in 0..<Self.window {
                let v = changes[i]
                var j = i
                while j > 0, sorted[j - 1] > v {
                    sorted[j] = sorted[j - 1]
                    j -= 1
                }
                sorted[j] = v
            }
            return sorted[Self.window / 2]
        }
    }
}
