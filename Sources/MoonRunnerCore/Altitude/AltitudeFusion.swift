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
    /// without its gusts (`BaroAltitudeFilter.climbShape`; without the level,
    /// whose corrections toward GPS are no climb), the terrain's, or the GPS
    /// altitude. Evidence of motion reads this (`ClimbEvidence`).
    public var shape: Double
}

/// One altitude from a barometer and GPS: the barometer gives the shape, GPS
/// the absolute level and, over time, the correction of the weather's drift
/// (`BaroAltitudeFilter`, `BaroLevel`). The GPS-only altitude is always kept,
/// so losing the barometer costs only precision. Without a barometer a
/// terrain model under the position gives the ground's altitude, GPS filling
/// where it does not (`AltitudeSeam`); with one it replaces GPS as the level.
/// Climbs count with hysteresis (`ClimbCounter`), each in full from its
/// turning point, only while the wearer moves, with a band above the source's
/// noise (a few times the barometer's after its gusts, the DEM's roughness,
/// twice the fix's vertical error); the level's corrections and a change of
/// source add no climb (`ClimbSignal` bridges a short terrain gap).
/// O(1) state, no allocation per reading; time is the engine clock.
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
    private var seam = AltitudeSeam()
    private var relief: TerrainRelief
    private var countSignal = ClimbSignal()
    /// Metres travelled since the fusion started (the terrain model's errors belong to places).
    private var travelled = 0.0

    public init(config: AltitudeFusionConfig = AltitudeFusionConfig()) {
        self.config = config
        baro = BaroAltitudeFilter(config: config)
        relief = TerrainRelief(config: config)
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
    /// `terrain` is the terrain model's elevation under the filtered position
    /// (NaN where no tile covers it), from postings `terrainSpacing` arc-seconds
    /// apart, and `moved` the metres the fix added.
    public mutating func gps(altitude: Double, sigma: Double, at t: Double, moving: Bool,
                             terrain: Double = .nan, terrainSpacing: Double = 1, moved: Double = 0) -> AltitudeUpdate {
        if moved.isFinite { travelled += max(moved, 0) }
        let relief = terrain.isFinite ? self.relief.add(terrain, travelled: travelled, config: config) : 0
        let outcome = gpsAltitude.update(altitude: altitude, sigma: sigma, at: t, config: config)
        let fresh = baro.isFresh(at: t, config: config)
        if fresh {
            // The barometer keeps the shape; the terrain model, where there is one, is the better level.
            if terrain.isFinite {
                level.update(terrain: terrain, pressureAltitude: baro.shape, travelled: travelled, at: t, config: config)
            } else {
                level.update(gpsAltitude: altitude, sigma: sigma, pressureAltitude: baro.shape, at: t, config: config)
            }
        }
        let now: AltitudeSource = fresh && level.isKnown ? .barometric : terrain.isFinite ? .dem : .gps
        let (own, band) = signal(now, terrain: terrain, spacing: terrainSpacing, relief: relief, sigma: sigma)
        if now != source {
            seam.switched(from: source, to: now, shownBefore: latest, signal: own, travelled: travelled)
        }
        let restarted = now == .gps && outcome == .restarted
        if now != source {
            if countSignal.switched(from: source, to: now, gpsRestarted: restarted, travelled: travelled) {
                climbs.restart()
            }
        } else if restarted {
            countSignal.gpsRestarted()
            climbs.restart()
        }
        source = now
        let (counted, restart) = countSignal.counted(own, source: now, travelled: travelled, config: config)
        if restart { climbs.restart() }

        let shown = now == .barometric ? baro.shape + level.offset : own + seam.offset(travelled: travelled, config: config)
        if shown.isFinite { latest = shown }
        var update = AltitudeUpdate(altitude: shown, gain: 0, loss: 0, source: now, shape: counted)
        guard moving else {
            climbs.restart()
            return update
        }
        (update.gain, update.loss) = climbs.update(counted, band: band)
        return update
    }

    /// The altitude climbs are counted on for `source`, and its hysteresis band: on the
    /// terrain, wider where its relief is within its own error (`TerrainRelief`).
    private func signal(_ source: AltitudeSource, terrain: Double, spacing: Double, relief: Double,
                        sigma: Double) -> (Double, Double) {
        switch source {
        case .barometric: (baro.climbShape, config.baroBand)
        case .dem: (terrain, relief < config.terrainFlatRelief ? config.terrainFlatRelief : config.terrainBand(arcSeconds: spacing))
        case .gps: (gpsAltitude.altitude, GPSAltitudeTracker.band(sigma: sigma, config: config))
        }
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
        seam = AltitudeSeam()
        relief = TerrainRelief(config: config)
        countSignal = ClimbSignal()
        source = .gps
        latest = .nan
    }
}
