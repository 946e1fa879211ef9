/// Running totals of what the barometer sent the fusion.
public struct BaroCounters: Sendable, Equatable, Codable {
    /// Readings used.
    public var samples = 0
    /// Readings refused: impossible pressure, out of order, frozen.
    public var rejected = 0
    public var implausible = 0
    public var outOfOrder = 0
    public var frozen = 0
    /// Jumps faster than anyone climbs, absorbed as a shift of the level.
    public var levelShifts = 0

    public init() {}

    private enum CodingKeys: String, CodingKey {
        case samples, rejected, implausible, outOfOrder = "out_of_order", frozen, levelShifts = "level_shifts"
    }
}

/// The altitude of one accepted fix, and what it adds to the climb.
public struct AltitudeUpdate: Sendable, Equatable {
    /// Metres above mean sea level (NaN when nothing is known yet).
    public var altitude: Double
    public var gain: Double
    public var loss: Double
    public var source: AltitudeSource
    /// The altitude the climb is counted on: the barometer's own shape
    /// (without the level, whose corrections toward GPS are no climb), or the
    /// GPS altitude. Evidence of motion reads this (`ClimbEvidence`).
    public var shape: Double
}

/// One altitude from a barometer and GPS: the barometer gives the shape, GPS
/// the absolute level and, over time, the correction of the weather's drift.
///
/// * Barometer readings come in as they are read (`ingest`); they go through
///   `BaroAltitudeFilter` (refusals, averaging, gust median, level shifts).
/// * Every accepted fix (`gps`) updates the GPS-only altitude (always kept,
///   so that losing the barometer costs nothing but precision) and, while
///   the barometer is fresh, the level (`BaroLevel`). The fix's altitude is
///   then the barometric shape on that level, or the GPS-only altitude.
/// * Climbs count with hysteresis (`ClimbCounter`) only while the wearer
///   moves: on the barometric shape with a band a few times its noise, on
///   GPS altitude with a band no smaller than the fix's own vertical error.
///   The level's slow corrections never count as climbing. A change of
///   source starts counting afresh, so switching adds no climb.
///
/// Pure value type with O(1) state and no allocation per reading; time is
/// the engine clock of the readings and of the fixes.
public struct AltitudeFusion: Sendable {
    public let config: AltitudeFusionConfig
    public private(set) var counters = BaroCounters()
    /// The source of the last fix's altitude.
    public private(set) var source: AltitudeSource = .gps
    /// The last fix's altitude (NaN before the first).
    public private(set) var latest = Double.nan

    private var baro: BaroAltitudeFilter
    private var level = BaroLevel()
    private var gpsAltitude = GPSAltitudeTracker()
    private var climbs = ClimbCounter()

    public init(config: AltitudeFusionConfig = AltitudeFusionConfig()) {
        self.config = config
        baro = BaroAltitudeFilter(config: config)
    }

    /// One barometer reading. Returns why it was refused, or nil.
    @discardableResult
    public mutating func ingest(_ sample: BaroSample) -> BaroRejection? {
        let shiftsBefore = baro.levelShifts
        let verdict = baro.ingest(sample, config: config)
        counters.levelShifts += baro.levelShifts - shiftsBefore
        switch verdict {
        case nil: counters.samples += 1
        case .implausible?: counters.implausible += 1
        case .outOfOrder?: counters.outOfOrder += 1
        case .frozen?: counters.frozen += 1
        }
        if verdict != nil { counters.rejected += 1 }
        return verdict
    }

    /// One accepted fix's altitude (metres, NaN for a 2D fix) and its 1σ
    /// vertical error, at engine time `t`; `moving` is the GPS filter's verdict.
    public mutating func gps(altitude: Double, sigma: Double, at t: Double, moving: Bool) -> AltitudeUpdate {
        let outcome = gpsAltitude.update(altitude: altitude, sigma: sigma, at: t, config: config)
        let fresh = baro.isFresh(at: t, config: config)
        if fresh {
            level.update(gpsAltitude: altitude, sigma: sigma, pressureAltitude: baro.shape, at: t, config: config)
        }
        let now: AltitudeSource = fresh && level.isKnown ? .barometric : .gps
        if now != source || (now == .gps && outcome == .restarted) { climbs.restart() }
        source = now

        let shown: Double
        let counted: Double
        let band: Double
        switch now {
        case .barometric:
            shown = baro.shape + level.offset
            counted = baro.shape
            band = config.baroBand
        case .gps:
            shown = gpsAltitude.altitude
            counted = shown
            band = GPSAltitudeTracker.band(sigma: sigma, config: config)
        }
        if shown.isFinite { latest = shown }
        var update = AltitudeUpdate(altitude: shown, gain: 0, loss: 0, source: now, shape: counted)
        guard moving else {
            climbs.restart()
            return update
        }
        (update.gain, update.loss) = climbs.update(counted, band: band)
        return update
    }

    /// The next climb starts from the next fix (a pause or a resume).
    public mutating func breakSegment() {
        climbs.restart()
    }

    /// Forgets everything but the counters (restart, loss of the session).
    public mutating func reset() {
        baro.reset(config: config)
        level.reset()
        gpsAltitude.reset()
        climbs.restart()
        source = .gps
        latest = .nan
    }
}
