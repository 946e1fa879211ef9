import Glibc

extension GPSFilter {
    /// Where the filter stood before a fix and how fast it went, and how long
    /// the step to the fix is: what the step's distance is counted from.
    struct StepStart: Sendable {
        var east: Double
        var north: Double
        var velocity: (east: Double, north: Double)
        /// Seconds from the last fix stepped to, to this one.
        var dt: Double

    }

    /// The distance of a track: each step's length, what is owed from steps
    /// that went back, and where a segment starts (its first step counts
    /// nothing).
    struct Odometer: Sendable {
        /// The next step or point starts a new segment.
        var newSegment = true
        /// The point of the fix being filtered starts a segment.
        var pointStartsSegment = false
        /// Negative along-track corrections not yet paid back (distance never goes down).
        var debt = 0.0
        /// Smoothed speed of recent steps, m/s (judges long gaps).
        var recentSpeed = 0.0

        /// Distance of the step just filtered, from `start` to where the two
        /// axes are now: the mean speed × the time with a velocity measured
        /// (each speed cleared of the velocity's `noise`), else the
        /// displacement along the direction of travel.
        mutating func count(from start: StepStart, to east: KalmanAxis, _ north: KalmanAxis, usingVelocity: Bool,
                            noise: VelocityNoise) -> Double {
            if newSegment {
                newSegment = false
                pointStartsSegment = true
                return 0
            }
            let dt = start.dt
            var ds: Double
            if usingVelocity {
                ds = 0.5 * (noise.speed(east: start.velocity.east, north: start.velocity.north)
                            + noise.speed(east: east.v, north: north.v)) * dt
            } else {
                let ue = start.velocity.east + east.v, un = start.velocity.north + north.v
                let u = hypot(ue, un)
                let de = east.p - start.east, dn = north.p - start.north
                ds = u > 0.2 ? (de * ue + dn * un) / u : hypot(de, dn)
            }
            ds += debt
            if ds < 0 {
                debt = ds
                ds = 0
            } else {
                debt = 0
            }
            recentSpeed += 0.1 * (ds / max(dt, 1e-3) - recentSpeed)
            return ds
        }

        /// A point placed without a step (a start, a standing fix) takes the segment start.
        mutating func consumeSegmentStart() {
            if newSegment {
                newSegment = false
                pointStartsSegment = true
            }
        }

        /// The next point starts a new segment, and nothing owed is carried across.
        mutating func breakSegment() {
            newSegment = true
            debt = 0
        }
    }
}
