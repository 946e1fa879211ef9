import Foundation
import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

/// A body-worn barometer: the true altitude through the standard atmosphere
/// on a sea-level pressure that drifts with the weather, plus white noise,
/// at 10 Hz.
struct SimulatedBarometer {
    var rng: GPSTestRandom
    var noise = 1.3                 // Pa RMS per reading
    var driftPaPerHour = 0.0        // weather trend
    init(seed: UInt64) { rng = GPSTestRandom(seed: seed) }

    mutating func reading(t: Double, altitude: Double) -> BaroSample {
        let p = BarometricAltitude.pressure(altitude: altitude) + driftPaPerHour * t / 3600 + noise * rng.gaussian()
        return BaroSample(t: t, pressure: (p / 0.16).rounded() * 0.16, temperature: 30)
    }
}

/// Drives a fusion with one GPS fix a second and ten barometer readings in between.
struct FusionRun {
    var fusion = AltitudeFusion()
    var baro: SimulatedBarometer?
    var rx: SimulatedGPSReceiver
    var gain = 0.0, loss = 0.0
    var updates: [AltitudeUpdate] = []
    var rejected: [BaroRejection] = []

    init(seed: UInt64, barometer: Bool) {
        rx = SimulatedGPSReceiver(seed: seed)
        baro = barometer ? SimulatedBarometer(seed: seed + 1000) : nil
    }

    /// Seconds `from..<to` of a wearer at `altitude(t)`; `reading` may alter each barometer reading.
    mutating func run(_ seconds: Range<Int>, moving: Bool = true, altitude: (Double) -> Double,
                      reading: (BaroSample) -> BaroSample? = { $0 }) {
        for i in seconds {
            let t = Double(i)
            if baro != nil {
                for k in 0..<10 {
                    let tk = t + Double(k) / 10
                    guard let raw = baro?.reading(t: tk, altitude: altitude(tk)), let s = reading(raw) else { continue }
                    if let why = fusion.ingest(s) { rejected.append(why) }
                }
            }
            let fix = rx.fix(t: t, east: Double(i) * 3, north: 0, ve: 3, vn: 0, altitude: altitude(t))
            let u = fusion.gps(altitude: fix.altitude, sigma: fix.stdAlt, at: t + 0.95, moving: moving)
            gain += u.gain
            loss += u.loss
            updates.append(u)
        }
    }
}

/// A hill: flat, a 40 m climb over 400 s, flat, back down over 400 s.
func hill(_ t: Double) -> Double {
    400 + 40 * min(max((t - 50) / 400, 0), 1) - 40 * min(max((t - 600) / 400, 0), 1)
}

@Suite("Altitude fusion")
struct AltitudeFusionTests {
    @Test("GPS alone: noise on flat ground stays inside the band, a 40 m climb counts")
    func gpsOnly() {
        var flat = FusionRun(seed: 20, barometer: false)
        flat.run(0..<600) { _ in 400 }
        #expect(flat.gain < 6, "gain on flat ground \(flat.gain)")
        #expect(flat.loss < 6)
        #expect(flat.updates.allSatisfy { $0.source == .gps })

        var up = FusionRun(seed: 21, barometer: false)
        up.run(0..<700) { t in 400 + 40 * min(max((t - 50) / 400, 0), 1) }
        #expect(abs(up.gain - 40) < 6, "gain \(up.gain)")
        #expect(up.loss < 6)
    }

    @Test("the GPS band is never smaller than the fix's own vertical error")
    func gpsBandFollowsSigma() {
        let cfg = AltitudeFusionConfig()
        #expect(GPSAltitudeTracker.band(sigma: 1, config: cfg) == cfg.gpsMinimumBand)
        #expect(GPSAltitudeTracker.band(sigma: 14, config: cfg) == 14 * cfg.gpsBandSigmas)
        #expect(GPSAltitudeTracker.band(sigma: .nan, config: cfg) == cfg.defaultAltitudeSigma * cfg.gpsBandSigmas)
    }

    @Test("with a barometer: a hill counts to the decimetre, the altitude sits on the GPS level")
    func barometricHill() {
        var r = FusionRun(seed: 30, barometer: true)
        r.run(0..<1100, altitude: hill)
        #expect(abs(r.gain - 40) < 1, "gain \(r.gain)")
        #expect(abs(r.loss - 40) < 1, "loss \(r.loss)")
        #expect(r.updates.dropFirst(5).allSatisfy { $0.source == .barometric })
        // After two minutes the fused altitude is within a few metres of the truth.
        let errors = r.updates.enumerated().dropFirst(120).map { abs($0.element.altitude - hill(Double($0.offset))) }
        let median = errors.sorted()[errors.count / 2]
        #expect(median < 3, "median altitude error \(median) m")
    }

    @Test("with a barometer: flat ground with noise, weather drift and gusts of up to 4 s counts almost nothing",
          arguments: [1.5, 3, 4])
    func barometricFlat(gust: Double) {
        var r = FusionRun(seed: 31, barometer: true)
        r.baro?.driftPaPerHour = 60   // 0.6 hPa/h, ≈ 5 m/h
        r.run(0..<1200, altitude: { _ in 250 }) { s in
            var g = s
            // A 25 Pa gust (2 m) for `gust` seconds every five minutes.
            if s.t.truncatingRemainder(dividingBy: 300) > 100 && s.t.truncatingRemainder(dividingBy: 300) < 100 + gust {
                g.pressure += 25
            }
            return g
        }
        // The drift alone is 1.7 m over 20 minutes; nothing else may count.
        #expect(r.gain < 0.5, "gain \(r.gain)")
        #expect(r.loss < 2.5, "loss \(r.loss)")
        #expect(r.fusion.counters.levelShifts == 0)
    }

    @Test("standing still counts nothing, even while the pressure changes")
    func standingStill() {
        var r = FusionRun(seed: 32, barometer: true)
        r.run(0..<300, moving: false, altitude: { t in 100 + t / 30 })
        #expect(r.gain == 0 && r.loss == 0)
    }

    @Test("impossible pressures are refused and counted, and change nothing")
    func impossiblePressure() {
        var clean = FusionRun(seed: 33, barometer: true)
        clean.run(0..<300, altitude: hill)
        var r = FusionRun(seed: 33, barometer: true)
        r.run(0..<300, altitude: hill) { s in
            var bad = s
            let k = Int((s.t * 10).rounded()) % 37
            if k == 3 { bad.pressure = 29_999 }
            if k == 7 { bad.pressure = 110_001 }
            if k == 11 { bad.pressure = .nan }
            return bad
        }
        #expect(r.rejected.count == r.fusion.counters.rejected)
        #expect(r.fusion.counters.implausible > 200)
        #expect(r.rejected.allSatisfy { $0 == .implausible })
        #expect(abs(r.gain - clean.gain) < 0.5, "gain \(r.gain) against \(clean.gain) without the bad readings")
        #expect(r.updates.dropFirst(5).allSatisfy { $0.source == .barometric })
    }

    @Test("a frozen barometer is refused after two seconds and GPS takes over without a climb")
    func frozenValue() {
        var r = FusionRun(seed: 34, barometer: true)
        var frozen: BaroSample?
        r.run(0..<400, altitude: { t in 300 + 20 * min(max((t - 100) / 200, 0), 1) }) { s in
            guard s.t >= 150 else { return s }
            if frozen == nil { frozen = s }
            var f = frozen ?? s
            f.t = s.t
            return f
        }
        #expect(r.fusion.counters.frozen > 2000)
        #expect(r.rejected.allSatisfy { $0 == .frozen })
        #expect(r.updates[140].source == .barometric)
        #expect(r.updates[160].source == .gps)
        // The switch itself adds nothing: what counted before it plus what GPS's own altitude climbed
        // after it, never the jump between the two levels.
        let switched = r.updates.indices.first { $0 > 100 && r.updates[$0].source == .gps } ?? 0
        let after = r.updates[switched...]
        let gpsClimb = (after.map(\.shape).max() ?? 0) - (after.map(\.shape).min() ?? 0)
        #expect(abs(after.map(\.gain).reduce(0, +) - gpsClimb) < 0.01, "GPS climbed \(gpsClimb) m after the switch")
        // GPS's smoothed altitude lags a metre behind the barometer at the switch and overshoots the
        // top by about two (`GPSAltitudeTracker`): the 20 m climb counts as at most 24.
        #expect(r.gain > 20 && r.gain < 24, "gain \(r.gain)")
    }

    @Test("a sudden 500 Pa step (a sealed case opened) is absorbed as a level shift, not a climb")
    func pressureStep() {
        var r = FusionRun(seed: 35, barometer: true)
        r.run(0..<600, altitude: { _ in 120 }) { s in
            var g = s
            if s.t >= 200 { g.pressure -= 500 }   // ≈ 42 m "up"
            return g
        }
        #expect(r.fusion.counters.levelShifts >= 1)
        #expect(r.gain < 0.5, "gain \(r.gain)")
        #expect(r.loss < 0.5, "loss \(r.loss)")
        // The altitude stays on the ground, not 42 m above it.
        let late = r.updates[300...].map(\.altitude)
        #expect(late.allSatisfy { abs($0 - 120) < 10 }, "\(late.min() ?? 0)…\(late.max() ?? 0)")
    }

    @Test("readings out of order are refused")
    func outOfOrder() {
        var f = AltitudeFusion()
        #expect(f.ingest(BaroSample(t: 10, pressure: 100_000)) == nil)
        #expect(f.ingest(BaroSample(t: 10, pressure: 100_001)) == .outOfOrder)
        #expect(f.ingest(BaroSample(t: 9, pressure: 100_001)) == .outOfOrder)
        #expect(f.counters.outOfOrder == 2 && f.counters.rejected == 2 && f.counters.samples == 1)
    }

    @Test("the standard atmosphere: 1013.25 hPa is sea level, 1 hPa is about 8.4 m near it")
    func standardAtmosphere() {
        #expect(abs(BarometricAltitude.altitude(pressure: 101_325)) < 1e-9)
        let dh = BarometricAltitude.altitude(pressure: 101_225) - BarometricAltitude.altitude(pressure: 101_325)
        #expect(abs(dh - 8.4) < 0.1)
        #expect(abs(BarometricAltitude.altitude(pressure: BarometricAltitude.pressure(altitude: 321.5)) - 321.5) < 1e-6)
    }
}

@Suite("Altitude in the session engine")
struct EngineAltitudeTests {
    /// Records a session over `hill` with a barometer (or without) and returns the engine and its points.
    static func record(barometer: Bool) -> (SessionEngine, [TrackPoint]) {
        var engine = SessionEngine()
        var points: [TrackPoint] = []
        var rx = SimulatedGPSReceiver(seed: 40)
        var baro = SimulatedBarometer(seed: 41)
        let t0 = 1_700_000_000.0
        try? engine.start(activity: .run, at: t0) { _ in }
        for i in 0..<1100 {
            let t = t0 + Double(i)
            if barometer {
                for k in 0..<10 {
                    let tk = Double(i) + Double(k) / 10
                    var s = baro.reading(t: tk, altitude: hill(tk))
                    s.t += t0
                    engine.ingest(s) { _ in }
                }
            }
            var fix = rx.fix(t: Double(i), east: Double(i) * 3, north: 0, ve: 3, vn: 0, altitude: hill(Double(i)))
            fix.time = t
            engine.ingest(fix, at: t + 0.95) { out in
                if case let .point(p) = out { points.append(p) }
            }
        }
        return (engine, points)
    }

    @Test("with a barometer: barometric source, the climb in the stats, fused altitudes in the track")
    func barometric() throws {
        let (engine, points) = Self.record(barometer: true)
        let st = engine.stats
        #expect(st.altitudeSource == .barometric)
        #expect(st.barometricPoints >= st.points - 5)
        #expect(abs(st.elevationGain - 40) < 1.5, "gain \(st.elevationGain)")
        #expect(abs(st.elevationLoss - 40) < 1.5, "loss \(st.elevationLoss)")
        #expect(engine.altitudeSource == .barometric && engine.baroCounters.samples == 11_000)
        // The points carry the fused altitude: smooth (no GPS jitter) and on the hill.
        let late = points.suffix(from: 300)
        let jumps = zip(late, late.dropFirst()).map { abs($0.1.altitude - $0.0.altitude) }
        #expect((jumps.max() ?? 99) < 0.5, "largest step between points \(jumps.max() ?? 0) m")
        // The stored snapshot says where the altitude came from.
        let json = String(decoding: try JSONEncoder().encode(engine.snapshot), as: UTF8.self)
        #expect(json.contains("\"altitude_source\":\"barometric\""))
        let back = try JSONDecoder().decode(SessionSnapshot.self, from: Data(json.utf8))
        #expect(back.stats.altitudeSource == .barometric && back.stats.barometricPoints == st.barometricPoints)
    }

    @Test("without one: GPS source, and an old snapshot without the field reads as GPS")
    func gpsOnly() throws {
        let (engine, _) = Self.record(barometer: false)
        #expect(engine.stats.altitudeSource == .gps && engine.stats.barometricPoints == 0)
        #expect(abs(engine.stats.elevationGain - 40) < 8, "gain \(engine.stats.elevationGain)")
        let old = #"{"activity":"run","elevation_gain_m":3}"#
        #expect(try JSONDecoder().decode(SessionStats.self, from: Data(old.utf8)).altitudeSource == .gps)
    }

    @Test("standing with a barometer while its level settles on a noisy GPS altitude 40 m away: no climb, no resume")
    func standingLevelIsNoClimb() {
        var engine = SessionEngine()
        var rx = SimulatedGPSReceiver(seed: 42)
        var baro = SimulatedBarometer(seed: 43)
        var noise = GPSTestRandom(seed: 44)
        let t0 = 1_700_000_000.0
        var climbs: [SessionEvent] = []
        try? engine.start(activity: .hike, at: t0) { _ in }
        for i in 0..<600 {
            let t = t0 + Double(i)
            for k in 0..<10 {
                var s = baro.reading(t: Double(i) + Double(k) / 10, altitude: 100)
                s.t += t0
                engine.ingest(s) { _ in }
            }
            // GPS altitude 8 m off at random on each fix: the level's first corrections are large.
            var fix = rx.fix(t: Double(i), east: 0, north: 0, ve: 0, vn: 0, altitude: 140 + 8 * noise.gaussian())
            fix.time = t
            engine.ingest(fix, at: t + 0.95) { out in
                if case let .event(e) = out, e.cause == "climb" { climbs.append(e) }
            }
        }
        #expect(engine.altitudeSource == .barometric)
        #expect(climbs.isEmpty, "\(climbs.count) climb events, the first at \((climbs.first?.time ?? t0) - t0) s")
    }

    @Test("refused readings do not move the engine's clock")
    func refusedReadings() {
        var engine = SessionEngine()
        engine.ingest(BaroSample(t: 5_000, pressure: 5)) { _ in }
        #expect(engine.now == -.infinity)
        #expect(engine.baroCounters.implausible == 1)
    }
}
