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
}
