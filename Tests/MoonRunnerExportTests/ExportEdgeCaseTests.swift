import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

/// Sessions a wearer can really produce that are awkward to write: one with
/// no track at all (indoors, or the receiver never got a fix), one recorded
/// while the receiver's clock jumped. Each gives a file its reader accepts,
/// with no negative duration and no time out of order.
@Suite("Export: sessions without points, and across a receiver clock jump")
struct ExportEdgeCaseTests {
    static let checkScript = """
        import json, sys, gpxpy
        from garmin_fit_sdk import Decoder, Stream
        g = gpxpy.parse(open(sys.argv[1]))
        gpx = [p.time.timestamp() for t in g.tracks for s in t.segments for p in s.points]
        d = Decoder(Stream.from_file(sys.argv[2]))
        ok = d.check_integrity()
        m, errors = Decoder(Stream.from_file(sys.argv[2])).read()
        fit = [r["timestamp"].timestamp() for r in m.get("record_mesgs", [])]
        s = m["session_mesgs"][0]
        print(json.dumps({"gpx": gpx, "fit": fit, "fit_ok": ok and not errors,
                          "fit_start": s["start_time"].timestamp(), "fit_timer": s.get("total_timer_time"),
                          "fit_elapsed": s.get("total_elapsed_time")}))
        """

    /// Writes the session's GPX and FIT and reads them back with gpxpy and Garmin's SDK.
    static func readBack(_ session: ExportSession, _ name: String) throws -> [String: Any] {
        let dir = try makeScratchDirectory(name)
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpx = dir.appendingPathComponent("s.gpx"), fit = dir.appendingPathComponent("s.fit")
        try GPXWriter.write(session).write(to: gpx)
        try FITWriter.write(session).write(to: fit)
        // gpsbabel reads the TCX too (an empty course of laps is still a file).
        let tcx = dir.appendingPathComponent("s.tcx")
        try TCXWriter.write(session).write(to: tcx)
        let babel = try ExternalTool.run("gpsbabel", ["-t", "-i", "gtrnctr", "-f", tcx.path, "-o", "gpx", "-F", "-"],
                                         hint: ExternalTool.gpsbabelHint)
        #expect(babel.status == 0, "gpsbabel cannot read the TCX: \(babel.stderr)")
        return try ExternalTool.python(checkScript, [gpx.path, fit.path])
    }

    @Test("a session with no points: every format is a valid file")
    func noPoints() throws {
        var stats = SessionStats()
        stats.startTime = ExportFixture.start
        stats.elapsed = 600
        stats.moving = 600
        stats.steps = 900
        let session = ExportSession(id: 3, activity: .walk, startTime: ExportFixture.start, stats: stats, points: [])
        let r = try Self.readBack(session, "empty")
        #expect((r["gpx"] as? [Double])?.isEmpty == true)
        #expect(r["fit_ok"] as? Bool == true, "\(r)")
        #expect((r["fit_timer"] as? Double ?? -1) >= 0)
        let json = try JSONSerialization.jsonObject(with: GeoJSONWriter.write(session)) as? [String: Any]
        #expect(json?["type"] as? String == "FeatureCollection")
        let csv = String(decoding: CSVWriter.write(session), as: UTF8.self)
        #expect(csv.split(whereSeparator: \.isNewline).count == 1)
    }

    @Test("a receiver's week roll-over mid-session: one clock for the whole file, every time in order")
    func weekRollover() throws {
        var engine = SessionEngine()
        var points: [TrackPoint] = []
        var events: [SessionEvent] = []
        let collect: (EngineOutput) -> Void = { o in
            if case let .point(p) = o { points.append(p) }
            if case let .event(e) = o { events.append(e) }
        }
        let utc = 1_715_000_000.0, rollover = 1024.0 * 7 * 86_400
        try engine.start(activity: .run, at: 100, emit: collect)
        for i in 0..<240 {
            // North at 3 m/s; after two minutes the receiver dates every fix 1024 weeks back.
            let t = 100.5 + Double(i)
            let time = utc + Double(i) - (i >= 120 ? rollover : 0)
            let fix = GPSFix(time: time, mode: 3, latitude: 51.5 + 3 * Double(i) / 111_200, longitude: -0.15,
                             altitude: 30, eph: 8, speed: 3, track: 0)
            engine.ingest(fix, at: t, emit: collect)
        }
        try engine.stop(at: 341, emit: collect)
        let snapshot = engine.snapshot
        let offset = try #require(snapshot.utcOffset)
        #expect(abs(offset - (utc - rollover - 100.5)) < 1, "the receiver's latest clock is taken: \(offset)")
        let stats = snapshot.stats.shifted(by: offset)
        let session = ExportSession(id: 4, activity: .run, startTime: stats.startTime, stats: stats,
                                    points: points.shifted(by: offset), events: events.shifted(by: offset),
                                    pauses: snapshot.pauses.shifted(by: offset))
        let r = try Self.readBack(session, "rollover")
        let gpx = try #require(r["gpx"] as? [Double]), fit = try #require(r["fit"] as? [Double])
        #expect(gpx.count > 200)
        #expect(zip(gpx, gpx.dropFirst()).allSatisfy { $0 <= $1 }, "GPX times out of order")
        #expect(zip(fit, fit.dropFirst()).allSatisfy { $0 <= $1 }, "FIT times out of order")
        let start = try #require(r["fit_start"] as? Double)
        #expect(start <= (fit.first ?? start) + 1)
        #expect((r["fit_timer"] as? Double ?? -1) >= 0 && (r["fit_elapsed"] as? Double ?? -1) >= 0, "\(r)")
        #expect(r["fit_ok"] as? Bool == true)
    }
}
