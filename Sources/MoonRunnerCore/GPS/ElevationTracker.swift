/// Elevation gain and loss from GPS altitude.
///
/// GPS altitude wanders by several metres over minutes, so summing raw
/// differences counts hundreds of metres of climbing on flat ground. The
/// altitude goes through a slow constant-climb Kalman filter (weighted by the
/// fix's vertical error, with outliers gated), and the smoothed altitude only
/// counts once it moved a hysteresis band away from the last turning point.
/// Nothing counts while the wearer stands still.
struct ElevationTracker: Sendable, Equatable {
    private var filter: KalmanAxis?
    private var lastTime = -Double.infinity
    private var anchor = Double.nan
    private var rejectedInARow = 0

    /// Forgets everything (new session or loss of fix).
    mutating func reset() {
        filter = nil
        lastTime = -.infinity
        anchor = .nan
        rejectedInARow = 0
    }

    /// The next climb starts from the next altitude (after a pause).
    mutating func breakSegment() {
        anchor = .nan
    }

    /// Smoothed altitude, NaN before the first one.
    var altitude: Double { filter?.p ?? .nan }

    /// Feeds one altitude (metres) with its 1σ error; returns what it adds.
    mutating func update(altitude h: Double, sigma: Double, at t: Double, moving: Bool,
                         config: GPSFilterConfig) -> (gain: Double, loss: Double) {
        guard h.isFinite else { return (0, 0) }
        let sigmaUsed = max(sigma.isFinite ? sigma : config.defaultAltitudeSigma, 0.5) * config.altitudeErrorInflation
        let r = sigmaUsed * sigmaUsed
        guard var f = filter else {
            filter = KalmanAxis(position: h, velocity: 0, positionVariance: r, velocityVariance: 0.01)
            lastTime = t
            return (0, 0)
        }
        let dt = t - lastTime
        guard dt > 0 else { return (0, 0) }
        lastTime = t
        f.predict(dt: dt, q: config.climbNoise * config.climbNoise)
        let (y, s) = f.positionInnovation(h, variance: r)
        if y * y > config.altitudeGate * s {
            rejectedInARow += 1
            if rejectedInARow >= 3 {
                // Three disagreeing altitudes in a row: the filter is the one that is wrong.
                f = KalmanAxis(position: h, velocity: 0, positionVariance: r, velocityVariance: 0.01)
                anchor = .nan
                rejectedInARow = 0
            }
            filter = f
            return (0, 0)
        }
        rejectedInARow = 0
        f.updatePosition(h, variance: r)
        filter = f
        guard moving else {
            anchor = .nan
            return (0, 0)
        }
        guard anchor.isFinite else {
            anchor = f.p
            return (0, 0)
        }
        let delta = f.p - anchor
        if delta >= config.elevationHysteresis {
            anchor = f.p
            return (delta, 0)
        }
        if delta <= -config.elevationHysteresis {
            anchor = f.p
            return (0, -delta)
        }
        return (0, 0)
    }
}
