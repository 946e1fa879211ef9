/// Smoothed altitude from GPS fixes alone.
///
/// GPS altitude wanders by several metres over minutes, so summing raw
/// differences counts hundreds of metres of climbing on flat ground. The
/// altitude goes through a slow constant-climb Kalman filter weighted by the
/// fix's vertical error, with outliers gated. How much of what comes out may
/// count as climbing is `band(sigma:)`: twice the fix's own 1σ vertical
/// error, which is what the receiver says its altitude wanders by, since a
/// climb that passes the band counts in full from its turning point.
struct GPSAltitudeTracker: Sendable, Equatable {
    private var filter: KalmanAxis?
    private var lastTime = -Double.infinity
    private var rejectedInARow = 0

    /// Forgets everything (new session or loss of fix).
    mutating func reset() {
        filter = nil
        lastTime = -.infinity
        rejectedInARow = 0
    }

    /// Smoothed altitude, NaN before the first one.
    var altitude: Double { filter?.p ?? .nan }

    /// The hysteresis band for a fix with this 1σ vertical error.
    static func band(sigma: Double, config: AltitudeFusionConfig) -> Double {
        let s = sigma.isFinite ? sigma : config.defaultAltitudeSigma
        return max(config.gpsMinimumBand, config.gpsBandSigmas * s)
    }

    /// What became of one altitude.
    enum Outcome: Sendable, Equatable {
        case accepted
        case rejected
        /// The filter started again from this altitude (the first, or after
        /// three outliers in a row): the smoothed altitude jumped.
        case restarted
    }

    /// Feeds one altitude (metres) with its 1σ error.
    @discardableResult
    mutating func update(altitude h: Double, sigma: Double, at t: Double, config: AltitudeFusionConfig) -> Outcome {
        guard h.isFinite else { return .rejected }
        let sigmaUsed = max(sigma.isFinite ? sigma : config.defaultAltitudeSigma, 0.5) * config.altitudeErrorInflation
        let r = sigmaUsed * sigmaUsed
        guard var f = filter else {
            filter = KalmanAxis(position: h, velocity: 0, positionVariance: r, velocityVariance: 0.01)
            lastTime = t
            return .restarted
        }
        let dt = t - lastTime
        guard dt > 0 else { return .rejected }
        lastTime = t
        f.predict(dt: dt, q: config.climbNoise * config.climbNoise)
        let (y, s) = f.positionInnovation(h, variance: r)
        if y * y > config.altitudeGate * s {
            rejectedInARow += 1
            if rejectedInARow >= 3 {
                // Three disagreeing altitudes in a row: the filter is the one that is wrong.
                f = KalmanAxis(position: h, velocity: 0, positionVariance: r, velocityVariance: 0.01)
                rejectedInARow = 0
                filter = f
                return .restarted
            }
            filter = f
            return .rejected
        }
        rejectedInARow = 0
        f.updatePosition(h, variance: r)
        filter = f
        return .accepted
    }
}
