/// Tells a receiver's Doppler speed from a speed derived from positions.
///
/// gpsd fills in a position-difference speed when the receiver gives none,
/// and logs converted from GPX carry speeds computed the same way. Such a
/// "speed" adds no information to the positions and is as noisy as they are
/// while standing, so it must not drive the motion decision. A speed that
/// keeps matching the distance between consecutive fixes divided by their
/// time difference is taken to be derived; a real Doppler speed disagrees with
/// it by the position noise.
struct DopplerCheck: Sendable, Equatable {
    /// Starts undecided, one step short of "derived": the first fix that
    /// matches settles it, the first that disagrees makes it Doppler. Until
    /// then the speed is believed (there is no evidence against it yet).
    private var score = Self.derivedAfter - 1
    private var lastTime = Double.nan
    private var lastEast = 0.0
    private var lastNorth = 0.0

    /// Matches needed (net of mismatches) before a speed counts as derived.
    private static let derivedAfter = 3
    private static let maxScore = 6

    mutating func reset() {
        score = Self.derivedAfter - 1
        lastTime = .nan
    }

    /// Shifts the remembered position when the filter moves its origin.
    mutating func shift(east: Double, north: Double) {
        lastEast -= east
        lastNorth -= north
    }

    /// Looks at one fix (position in the filter's plane) and returns true when
    /// its `speed` can be trusted as a Doppler measurement.
    mutating func observe(speed: Double, east: Double, north: Double, at t: Double) -> Bool {
        defer {
            lastTime = t
            lastEast = east
            lastNorth = north
        }
        guard speed.isFinite else { return false }
        let dt = t - lastTime
        if dt > 0 {
            let dx = east - lastEast, dy = north - lastNorth
            let implied = (dx * dx + dy * dy).squareRoot() / dt
            // Below a walking crawl both are noise-sized: nothing to learn.
            if implied > 0.3 {
                if abs(speed - implied) <= max(0.05, 0.03 * implied) {
                    score = min(score + 1, Self.maxScore)
                } else {
                    score = max(score - 1, 0)
                }
            }
        }
        return score < Self.derivedAfter
    }
}
