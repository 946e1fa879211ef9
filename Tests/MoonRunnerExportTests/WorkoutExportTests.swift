import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

/// A session run to a workout, exported: each step a lap in FIT and TCX, the
/// FIT laps with their `wkt_step_index` and `intensity`, and the activity
/// with the `workout` and `workout_step` messages, read by Garmin's FIT SDK.
@Suite("Export: a session run to a workout")
struct WorkoutExportTests {
    static let script = """
        import json, sys
        from garmin_fit_sdk import Decoder, Stream
        ok = Decoder(Stream.from_file(sys.argv[1])).check_integrity()
        m, errors = Decoder(Stream.from_file(sys.argv[1])).read()
        laps = m.get("lap_mesgs", [])
        print(json.dumps({"ok": ok and not errors, "errors": [str(e) for e in errors],
                          "wkt_step_index": [l.get("wkt_step_index") for l in laps],
                          "intensity": [str(l.get("intensity")) for l in laps],
                          "trigger": [str(l.get("lap_trigger")) for l in laps],
                          "distance": [l.get("total_distance") for l in laps],
                          "workout": [w.get("wkt_name") for w in m.get("workout_mesgs", [])],
                          "steps": len(m.get("workout_step_mesgs", []))}))
        """

    /// 2 × (400 m at 4:00/km, 60 s standing rest), then 2 minutes at 5:00/km, by the engine.
    static func session() throws -> ExportSession {
        let workout = try WorkoutText.parse("2x(400m @3:50-4:10/km, 60s rest); 2min", name: "Tuesday")
        var analysis = TraceAnalysis(workout: try WorkoutPlan(workout))
        var north = 0.0, t = ExportFixture.start
        func go(_ seconds: Int, _ speed: Double) {
            for _ in 0..<seconds {
                t += 1
                north += speed
                analysis.feed(GPSFix(time: t, mode: 3, latitude: 51.5 + north / 111_200, longitude: -0.15, altitude: 30,
                                     eph: 8, speed: speed, track: 0), at: t)
            }
        }
        go(1, 0)
        let begin = t
        for _ in 0..<2 {
            go(100, 1000 / 240)
            go(60, 0)
        }
        go(130, 1000 / 300)
        let summary = analysis.finish(at: t)
        var stats = SessionStats()
        stats.startTime = begin
        stats.elapsed = summary.elapsed
        stats.moving = summary.moving
        stats.distance = summary.distance
        return ExportSession(id: 9, activity: .run, startTime: begin, stats: stats, points: analysis.track,
                             events: summary.events, pauses: summary.pauses, workout: workout)
    }

    @Test("each step is a lap; FIT laps carry wkt_step_index and intensity; the activity carries the workout")
    func laps() throws {
        let session = try Self.session()
        // Five steps, then the 10 s run after the workout's end: a lap of no step.
        #expect(session.laps.map(\.step?.index) == [0, 1, 2, 3, 4, nil])
        #expect(session.laps.map(\.trigger) == [.workoutStep, .workoutStep, .workoutStep, .workoutStep, .workoutStep,
                                                .sessionEnd])
        #expect(abs(session.laps[0].distance - 400) < 1, "\(session.laps[0].distance)")

        let dir = try makeScratchDirectory("workout-laps")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fit = dir.appendingPathComponent("s.fit")
        try FITWriter.write(session).write(to: fit)
        let r = try ExternalTool.python(Self.script, [fit.path])
        #expect(r["ok"] as? Bool == true, "\(r)")
        #expect((r["wkt_step_index"] as? [Any])?.map { $0 as? Int } == [0, 1, 0, 1, 3, nil])
        #expect(r["intensity"] as? [String] == ["interval", "rest", "interval", "rest", "active", "active"])
        #expect(r["trigger"] as? [String] == ["distance", "time", "distance", "time", "time", "session_end"])
        #expect(r["workout"] as? [String] == ["Tuesday"] && r["steps"] as? Int == 4)

        let tcx = String(decoding: TCXWriter.write(session), as: UTF8.self)
        #expect(tcx.components(separatedBy: "<Lap StartTime").count - 1 == 6)
        #expect(tcx.components(separatedBy: "<Intensity>Resting</Intensity>").count - 1 == 2)
        #expect(tcx.contains("<TriggerMethod>Distance</TriggerMethod>"))
    }

    /// gpxpy's view of each segment's extensions, pytrainer's view of the laps
    /// (every `gpxdata:lap` in the file), and each lap written alone with a
    /// copy of Cluetrust's schema that imports the local GPX 1.1 one, for xmllint.
    static let gpxScript = """
        import json, os, sys, gpxpy
        import xml.etree.ElementTree as ET
        path, schemas, out = sys.argv[1:4]
        GD, MR = "{http://www.cluetrust.com/XML/GPXDATA/1/0}", "{urn:moonrunner:gpx:workout:1}"
        segments = []
        for track in gpxpy.parse(open(path)).tracks:
            for segment in track.segments:
                found = {}
                for e in segment.extensions:
                    if e.tag == MR + "step":
                        found["step"] = int(e.get("index"))
                        found["name"] = e.get("name")
                    elif e.tag == GD + "lap":
                        found["lap"] = int(e.findtext(GD + "index"))
                        found["intensity"] = e.findtext(GD + "intensity")
                        found["trigger"] = e.find(GD + "trigger").get("kind")
                segments.append(found)
        laps = ET.parse(path).getroot().findall(".//" + GD + "lap")
        files = []
        for k, lap in enumerate(laps):
            files.append(os.path.join(out, "lap%d.xml" % k))
            ET.ElementTree(lap).write(files[-1], xml_declaration=True, encoding="UTF-8")
        xsd = open(os.path.join(schemas, "Cluetrust_gpxdata10.xsd")).read()
        xsd = xsd.replace("http://www.topografix.com/GPX/1/1/gpx.xsd", os.path.join(schemas, "Topografix_gpx11.xsd"))
        open(os.path.join(out, "gpxdata.xsd"), "w").write(xsd)
        print(json.dumps({"segments": segments, "files": files,
                          "elapsed": [float(l.findtext(GD + "elapsedTime")) for l in laps]}))
        """

    @Test("in GPX each step is a trkseg whose extensions name its lap (GPXDATA) and its step; the file is valid GPX 1.1 and each lap valid GPXDATA 1.0")
    func gpxLaps() throws {
        let session = try Self.session()
        let laps = session.laps.filter { !$0.points.isEmpty }
        let dir = try makeScratchDirectory("workout-gpx")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("s.gpx")
        try GPXWriter.write(session).write(to: file)
        let r = try ExternalTool.python(Self.gpxScript, [file.path, HeartRateExportTests.schemas, dir.path])
        let segments = try #require(r["segments"] as? [[String: Any]])
        // The segments that end a lap, in order: one per lap with points, each with its step (none after the end).
        let ends = segments.filter { $0["lap"] != nil }
        #expect(ends.map { $0["lap"] as? Int } == laps.map { $0.number - 1 })
        #expect(ends.map { $0["step"] as? Int } == laps.map(\.step?.index), "\(segments)")
        #expect(ends.map { $0["intensity"] as? String } == laps.map { $0.step?.intensity.isBreak == true ? "rest" : "active" })
        #expect(ends.first?["trigger"] as? String == "distance", "the first 400 m ends by its distance")
        // pytrainer totals a file's laps: their times add up to the laps' own.
        let elapsed = try #require(r["elapsed"] as? [Double])
        #expect(zip(elapsed, laps).allSatisfy { abs($0 - $1.elapsed) < 0.06 }, "\(elapsed)")
        let valid = try HeartRateExportTests.validate(file, schema: "Topografix_gpx11.xsd")
        #expect(valid.status == 0, "\(valid.stderr.prefix(1500))")
        let xsd = dir.appendingPathComponent("gpxdata.xsd").path
        for lap in try #require(r["files"] as? [String]) {
            let check = try ExternalTool.run("xmllint", ["--noout", "--schema", xsd, lap], hint: HeartRateExportTests.xmllintHint)
            #expect(check.status == 0, "\(lap): \(check.stderr.prefix(800))")
        }
        // Without a workout the file is as before: no laps, no extra namespaces.
        var plain = session
        plain.laps = plain.laps.map { var l = $0; l.step = nil; return l }
        #expect(!String(decoding: GPXWriter.write(plain), as: UTF8.self).contains("gpxdata"))
    }
}
