import Foundation
import MoonRunnerProtocol
import Testing

/// The whole barometer path in a running daemon: gpsfake plays the first
/// minutes of the hilly sim scenario while `--baro replay:` plays its
/// barometer trace through the emulated BMP280 and the real driver; the
/// session that `show` reports climbed and descended what the truth did, on
/// the barometer.
@Suite("Barometer in the running daemon", .serialized)
struct BaroEndToEndTests {
    static let scenario = "c_trail"
    /// The part of the scenario played, seconds from its first fix: five minutes with a
    /// 38 m climb and 10 m of descent that start after a flat minute, so that the few
    /// seconds the session takes to start and the GPS filter to settle cost nothing.
    static let span = (from: 190.0, to: 490.0)
    static let speed = 20.0

    static var sim: URL { Paths.data.appendingPathComponent("gps/sim") }
    static var present: Bool {
        FileManager.default.fileExists(atPath: sim.appendingPathComponent("\(scenario).nmea").path)
            && FileManager.default.fileExists(atPath: Paths.data.appendingPathComponent("baro/\(scenario).baro.csv.gz").path)
    }

    @Test("the span played holds a climb and a descent worth measuring (the replay test's premise)",
          .enabled(if: BaroEndToEndTests.present, "the shared data's gps/sim/c_trail.nmea or baro/c_trail.baro.csv.gz is absent (MOONRUNNER_DATA)"))
    func spanClimbs() throws {
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.sim.appendingPathComponent("\(Self.scenario).truth.json")))
        let positions = try #require((truth as? [String: Any])?["positions"] as? [String: Any])
        let numbers = { (key: String) in (positions[key] as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue } }
        let t = numbers("t_s"), alt = numbers("alt_msl")
        let span = zip(t, alt).filter { $0.0 >= Self.span.from && $0.0 <= Self.span.to }.map(\.1)
        let gain = zip(span, span.dropFirst()).reduce(0.0) { $0 + max(0, $1.1 - $1.0) }
        let loss = zip(span, span.dropFirst()).reduce(0.0) { $0 + max(0, $1.0 - $1.1) }
        // `span` promises a 38 m climb and 10 m of descent (38.6 and 10.3 in the truth): with much less the
        // replay test's max(3 m, 15 %) would pass on a barometer that saw nothing.
        #expect(gain > 30 && loss > 8, "the span climbs \(gain) m and descends \(loss) m")
        // The truth has a position a second: 301 over the 300 s.
        #expect(span.count > 290, "\(span.count) true positions in the span")
    }

    @Test("a session recorded with --baro replay: reports the barometric climb, its source and a healthy barometer",
          .enabled(if: BaroEndToEndTests.present, "the shared data's gps/sim/c_trail.nmea or baro/c_trail.baro.csv.gz is absent (MOONRUNNER_DATA)"))
    func barometricSession() async throws {
        let rig = try Rig("baro")
        let nmea = rig.dir.appendingPathComponent("head.nmea")
        let baro = rig.dir.appendingPathComponent("head.baro.csv")
        let truth = rig.dir.appendingPathComponent("truth.json")
        // The first `seconds` of the scenario: NMEA by its time of day, the trace by its t, and the
        // truth's gain and loss over the same span.
        let script = """
            import gzip, json, sys, datetime
            sim, baro, first, last, out_nmea, out_baro, out_truth = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), *sys.argv[5:]
            d = json.load(open(sim + ".truth.json"))
            t0 = datetime.datetime.fromisoformat(d["first_fix_utc"].replace("Z", "+00:00")).timestamp()
            start, end = t0 + first, t0 + last
            def tod(hhmmss):
                day = datetime.datetime.fromtimestamp(t0, datetime.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
                return day.timestamp() + int(hhmmss[0:2]) * 3600 + int(hhmmss[2:4]) * 60 + float(hhmmss[4:])
            writing = False
            with open(sim + ".nmea") as f, open(out_nmea, "w") as o:
                for line in f:
                    stamp = line.split(",")[1] if line.startswith(("$GPGGA", "$GPRMC")) else ""
                    if stamp and tod(stamp) > end:
                        break
                    if line.startswith("$GPGGA") and stamp and tod(stamp) >= start:
                        writing = True
                    if writing:
                        o.write(line)
            with gzip.open(baro, "rt") as f, open(out_baro, "w") as o:
                o.write(next(f))
                for line in f:
                    t = float(line.split(",")[0])
                    if t > end: break
                    if t >= start: o.write(line)
            alts = [a for t, a in zip(d["positions"]["t_s"], d["positions"]["alt_msl"]) if first <= t <= last]
            gain = sum(max(0, b - a) for a, b in zip(alts, alts[1:]))
            loss = sum(max(0, a - b) for a, b in zip(alts, alts[1:]))
            json.dump({"gain": gain, "loss": loss}, open(out_truth, "w"))
            """
        let made = try run("/usr/bin/env", ["python3", "-c", script, Self.sim.appendingPathComponent(Self.scenario).path,
                                             Paths.data.appendingPathComponent("baro/\(Self.scenario).baro.csv.gz").path,
                                             String(Self.span.from), String(Self.span.to), nmea.path, baro.path, truth.path])
        try #require(made.status == 0, "\(made.err)")
        let want = try JSONSerialization.jsonObject(with: Data(contentsOf: truth)) as? [String: Double] ?? [:]
        let gainTruth = try #require(want["gain"]), lossTruth = try #require(want["loss"])

        try rig.startGPS(nmea: nmea, epochsPerSecond: Self.speed, sentencesPerEpoch: 8)
        try rig.startDaemon(speed: Self.speed, config: "auto_pause:\n  enabled: false\n", extra: [
            "--baro", "replay:\(baro.path),speed=\(Int(Self.speed))",
        ], loop: true)
        #expect(try rig.cli("start").status == 0)
        let live = try rig.waitFor(timeout: 30, "barometric altitude") {
            $0.altitudeSource == .barometric && $0.baro.health == .ok && $0.baro.samples > 100
        }
        #expect(live.baro.device?.contains("BMP280") == true, "\(live.baro)")
        #expect(live.baro.rejected == 0 && live.baro.busErrors == 0)
        // The trace plays out (the barometer reports lost at its end), then stop.
        let ended = try rig.waitFor(timeout: 60, "the end of the barometer trace") { $0.baro.health == .lost }
        #expect(try rig.cli("stop").status == 0)
        let id = try #require(ended.session)
        let shown = try rig.session(id)
        #expect(shown.stats.altitudeSource.rawValue == "barometric")
        #expect(shown.stats.barometricPoints > 0)
        let g = shown.stats.elevationGain, l = shown.stats.elevationLoss
        #expect(abs(g - gainTruth) <= max(3, 0.15 * gainTruth), "gain \(g) m, truth \(gainTruth) m")
        #expect(abs(l - lossTruth) <= max(3, 0.15 * lossTruth), "loss \(l) m, truth \(lossTruth) m")
        // The human view names the source too (on a loaded machine a first fix can come before the
        // barometer's first block: "(barometric 99 %, gps 1 %)").
        let text = try rig.cli("show", String(id))
        #expect(text.out.contains("(barometric"), "\(text.out)")
    }
}
