/// The barometer's absolute level, from GPS: the offset between GPS altitude
/// and pressure altitude, which the weather moves slowly.
///
/// A one-state Kalman filter: the offset is a random walk as fast as the
/// weather drifts; each fix measures it with the fix's vertical error. GPS
/// altitude errors stay correlated for about a minute, so a fix is worth
/// only its share of that minute: its variance is inflated by the
/// correlation time over the time since the last fix. Fixes far outside what
/// the filter expects (a multipath jump) are refused once the level is known.
struct BaroLevel: Sendable, Equatable {
    /// GPS altitude minus pressure altitude, metres; NaN until the first fix.
    private(set) var offset = Double.nan
    /// Its variance, m².
    private(set) var variance = Double.infinity
    private var lastTime = -Double.infinity
    /// Distance travelled at the last terrain reading, metres.
    private var lastTravelled = -Double.infinity

    var isKnown: Bool { offset.isFinite }

    mutating func reset() {
        self = BaroLevel()
    }

    /// Feeds one GPS altitude with its 1σ, against the pressure altitude at the same instant.
    mutating func update(gpsAltitude z: Double, sigma: Double, pressureAltitude hb: Double, at t: Double,
                         config: AltitudeFusionConfig) {
        guard z.isFinite, hb.isFinite else { return }
        let s = max(sigma.isFinite ? sigma : config.defaultAltitudeSigma, 0.5)
        let dt = lastTime.isFinite ? max(t - lastTime, 0) : 1
        guard dt > 0 || !lastTime.isFinite else { return }
        let r = s * s * max(1, 2 * config.gpsErrorCorrelation / max(dt, 1e-3))
        measure(z - hb, variance: r, sigma: s, at: t, config: config)
    }

    /// Feeds the terrain model's elevation under the track, against the pressure altitude
    /// at the same instant. A DEM's error belongs to the ground, not to the moment: it stays
    /// the same while the wearer stands and changes over `terrainCorrelation` metres, so a
    /// reading is worth only its share of that distance (`travelled`: metres so far).
    mutating func update(terrain z: Double, pressureAltitude hb: Double, travelled: Double, at t: Double,
                         config: AltitudeFusionConfig) {
        guard z.isFinite, hb.isFinite, t > lastTime || !lastTime.isFinite else { return }
        let s = config.terrainSigma
        let moved = lastTravelled.isFinite ? max(travelled - lastTravelled, 0) : config.terrainCorrelation
        lastTravelled = travelled
        let r = s * s * max(1, 2 * config.terrainCorrelation / max(moved, 1e-3))
        measure(z - hb, variance: r, sigma: s, at: t, config: config)
    }

    /// One measurement of the offset with its variance `r` (the measurement's own 1σ is `s`).
    private mutating func measure(_ measured: Double, variance r: Double, sigma s: Double, at t: Double,
                                  config: AltitudeFusionConfig) {
        guard offset.isFinite else {
            offset = measured
            variance = r
            lastTime = t
            return
        }
        let dt = max(t - lastTime, 0)
        variance += config.weatherDrift * config.weatherDrift / 3600 * dt
        lastTime = t
        let y = measured - offset
        // Gate against one fix's own error once the level is better known than a fix.
        if variance < r && y * y > config.altitudeGate * (variance + s * s) { return }
        let k = variance / (variance + r)
        offset += k * y
        variance *= 1 - k
    }
}
