import Glibc

extension GPSFilter {
    /// A position in the filter's plane at a receiver time.
    struct Stamped: Sendable {
        var t: Double
        var east: Double
        var north: Double
    }

    /// What the filter knows of the wearer since it last started on a fix:
    /// the two filtered axes, whether the wearer moves, and the outliers.
    /// Starting again on a fix is `track = Track(m, moving:)`; a filter that
    /// forgets its track starts from `Track()`. Nothing resets a part of it.
    struct Track: Sendable {
        /// False until the filter starts on a fix; the axes mean nothing before.
        var tracking = false
        var east = KalmanAxis(position: 0, velocity: 0, positionVariance: 0, velocityVariance: 0)
        var north = KalmanAxis(position: 0, velocity: 0, positionVariance: 0, velocityVariance: 0)
        /// Receiver time of the last fix the filter stepped to.
        var lastTime = Double.nan

        // Motion state.
        var moving = false
        /// Fixes in a row whose Doppler speed says "moving".
        var fastCount = 0
        var slowSince = Double.nan
        /// Doppler distance covered while confirming a start; paid out when it is confirmed.
        var pendingDistance = 0.0
        /// Averaged speed for receivers without Doppler: position at the window start.
        var window = Stamped(t: .nan, east: 0, north: 0)
        var windowSpeed = 1.0

        // Outliers.
        var rejectedSince = Double.nan
        var rejectedCount = 0
        var candidate: Stamped?
        /// While standing: the last fix that left the anchor, and how far.
        var departure: Stamped?
        var departureDistance = 0.0

        init() {}

        /// Starts on this fix, standing or moving (with its Doppler velocity, when it has one).
        init(_ m: Measurement, moving: Bool) {
            let useVelocity = moving && m.hasVelocity
            east = KalmanAxis(position: m.east, velocity: useVelocity ? m.vEast : 0,
                              positionVariance: m.rEast, velocityVariance: 4)
            north = KalmanAxis(position: m.north, velocity: useVelocity ? m.vNorth : 0,
                               positionVariance: m.rNorth, velocityVariance: 4)
            tracking = true
            lastTime = m.t
            window = Stamped(t: m.t, east: m.east, north: m.north)
            self.moving = moving
        }

        /// Moves both axes `dt` seconds ahead: under the motion model while
        /// moving; held still while standing, with a slow drift allowed (the
        /// config's `accelerationNoise` and `stillDrift`).
        mutating func predict(dt: Double, accelerationNoise: Double, stillDrift: Double) {
            if moving {
                let q = accelerationNoise * accelerationNoise
                east.predict(dt: dt, q: q)
                north.predict(dt: dt, q: q)
            } else {
                east.freeze()
                north.freeze()
                let drift = stillDrift * stillDrift * dt
                east.pp += drift
                north.pp += drift
            }
        }

        /// Counts the fixes in a row whose Doppler says "moving"; while
        /// standing, the distance they cover waits for the start to be confirmed.
        mutating func countFast(_ m: Measurement, dt: Double) {
            if m.fast {
                fastCount += 1
                if !moving && fastCount > 1 { pendingDistance += m.fix.speed * dt }
            } else {
                fastCount = 0
                pendingDistance = 0
            }
        }

        /// Notes an outlier while moving; true when the outliers have agreed
        /// with each other (at most `maxSpeed` apart) for `reacquireAfter`
        /// seconds and three fixes: they are the truth and the filter is lost.
        mutating func reacquires(_ m: Measurement, maxSpeed: Double, reacquireAfter: Double) -> Bool {
            if rejectedSince.isNaN {
                rejectedSince = m.t
                rejectedCount = 0
            }
            rejectedCount += 1
            var consistent = false
            if let c = candidate, m.t > c.t {
                let gap = max(0, hypot(m.east - c.east, m.north - c.north) - 3 * m.sigmaSum)
                consistent = gap / (m.t - c.t) <= maxSpeed
            }
            candidate = Stamped(t: m.t, east: m.east, north: m.north)
            if !consistent {
                rejectedSince = m.t
                rejectedCount = 1
            }
            return m.t - rejectedSince >= reacquireAfter && rejectedCount >= 3
        }

        /// After a fix taken while moving: updates the speed averaged over
        /// `speedWindow` seconds, and stops after `stillDwell` seconds below
        /// `stillSpeed`, or at once on the IMU's stillness hint.
        mutating func settle(_ m: Measurement, speedWindow: Double, stillSpeed: Double, stillDwell: Double) {
            if m.t - window.t >= speedWindow {
                windowSpeed = hypot(east.p - window.east, north.p - window.north) / (m.t - window.t)
                window = Stamped(t: m.t, east: east.p, north: north.p)
            }
            let slow = m.hasDoppler ? m.slow : windowSpeed < stillSpeed
            if m.stationaryHint || slow {
                if slowSince.isNaN { slowSince = m.t }
                if m.stationaryHint || m.t - slowSince >= stillDwell {
                    moving = false
                    east.freeze()
                    north.freeze()
                }
            } else {
                slowSince = .nan
            }
        }

        /// Sets off from the anchor: the velocity from Doppler, else from the
        /// way from the anchor to this fix.
        mutating func setOff(_ m: Measurement, from anchor: (east: Double, north: Double)) {
            moving = true
            slowSince = .nan
            departure = nil
            if m.hasVelocity {
                east.v = m.vEast
                north.v = m.vNorth
                east.vv = m.rVelocity
                north.vv = m.rVelocity
            } else {
                let elapsed = max(m.t - lastTime, 1)
                east.v = (m.east - anchor.east) / elapsed
                north.v = (m.north - anchor.north) / elapsed
                east.vv = 4
                north.vv = 4
            }
            east.pv = 0
            north.pv = 0
            // The anchor is sure of where the wearer stood, not of where they are now.
            east.pp = max(east.pp, m.rEast)
            north.pp = max(north.pp, m.rNorth)
        }

        /// The plane's origin moved by (`de`, `dn`) metres: every position
        /// remembered in it moves the other way.
        mutating func shiftOrigin(east de: Double, north dn: Double) {
            east.p -= de
            north.p -= dn
            window.east -= de
            window.north -= dn
            candidate?.east -= de
            candidate?.north -= dn
            departure?.east -= de
            departure?.north -= dn
        }
    }
}
