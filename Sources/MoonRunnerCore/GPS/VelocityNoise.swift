/// How far the filtered velocity scatters from fix to fix: the noise a slow
/// walker's speed must be cleared of before it counts as distance.
///
/// The length of a noisy velocity is longer than the speed on average: an
/// error across the direction of travel always lengthens it, |v + n| ≈ v + n∥
/// + n⊥²/(2v). The filtered velocity of the simulated hikes is off by
/// 0.09–0.10 m/s per axis at every pace (0.15 on the shared urban walk;
/// measured against their truth), which makes the counted distance +0.3 % at
/// a walk of 1.2 m/s and +3 % at 0.4 m/s: on a slow steep climb the noise is
/// counted as distance. Taking the noise power across the track out of the
/// squared speed, √(|v|² − σ²), leaves it right to first order (the error
/// along the track averages away by itself).
///
/// σ² comes from the velocity's own changes between consecutive fixes: two
/// independent errors of σ per axis make E|Δv|² = 4σ². A turn or a change of
/// pace changes the velocity too, but in a fix or two, so the median of the
/// last nine changes is taken rather than their mean; the median of nine
/// draws of an exponential distribution (|Δv|² of two-dimensional Gaussian
/// noise) is 1/9 + 1/8 + 1/7 + 1/6 + 1/5 = 0.7456 of its mean. On the
/// simulated hikes it reads 0.092 m/s where the error against the truth is
/// 0.094–0.099; on a watch's own speeds (`hr/fenix2_run`) 0.19 m/s, which
/// clears 0.3 % at its 3.2 m/s. A receiver that smooths its own velocity
/// makes consecutive errors alike, so their changes understate σ and less is
/// cleared, never more than the noise.
///
/// O(1) state (a ring of nine, allocated once), no allocation per fix; times are the receiver's.
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

    /// The middle of the ring: the one with as many below it as above it (ties by index).
    private func median() -> Double {
        for i in 0..<Self.window {
            var below = 0
            for j in 0..<Self.window where j != i {
                if changes[j] < changes[i] || (changes[j] == changes[i] && j < i) { below += 1 }
            }
            if below == Self.window / 2 { return changes[i] }
        }
        return 0
    }
}
