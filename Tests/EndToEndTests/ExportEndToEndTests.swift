import Foundation
import MoonRunnerProtocol
import MoonRunnerStore
import Testing

/// A session recorded by the real daemon, exported through the real CLI and
/// read back by tools that are not ours.
@Suite("Export of a recorded session", .serialized)
struct ExportEndToEndTests {
    @Test("GPX, TCX, FIT and SVG of a real recording open in gpsbabel, gpxpy, Garmin's FIT SDK and rsvg")
    func recordedSessionExports() async throws {
        let rig = try Rig("export")
        try rig.startGPS(epochsPerSecond: 20)
        try rig.startDaemon(speed: 20)
        #expect(try rig.cli("start", "--activity", "walk").status == 0)
        let live = try rig.waitFor(timeout: 60, "a few hundred metres") { $0.distanceM > 400 }
        #expect(try rig.cli("stop").status == 0)
        let id = try #require(live.session)
        let show = try rig.session(id)
        let points = show.points
        #expect(points > 100)

        var files: [String: String] = [:]
        for format in ["gpx", "tcx", "fit", "svg"] {
            let path = rig.dir.appendingPathComponent("s.\(format)").path
            let r = try rig.cli("export", String(id), "--format", format, "-o", path)
            #expect(r.status == 0, "\(format): \(r.err)")
            files[format] = path
        }
        let gpx = try #require(files["gpx"]), tcx = try #require(files["tcx"])
        let fit = try #require(files["fit"]), svg = try #require(files["svg"])

        // gpsbabel reads the GPX and the TCX back: every stored point is there.
        for (path, fmt) in [(gpx, "gpx"), (tcx, "gtrnctr")] {
            let csv = try run("/usr/bin/gpsbabel", ["-t", "-i", fmt, "-f", path, "-o", "unicsv", "-F", "-"])
            #expect(csv.status == 0, "gpsbabel \(fmt): \(csv.err)")
            let rows = csv.out.split(whereSeparator: \.isNewline).dropFirst().filter { !$0.isEmpty }
            #expect(rows.count == points, "gpsbabel \(fmt) read \(rows.count) of \(points) points: \(csv.out.prefix(300)) \(csv.err.prefix(300))")
        }

        // gpxpy and Garmin's FIT SDK, through Python.
        let script = """
            import json, sys, gpxpy
            from garmin_fit_sdk import Decoder, Stream
            g = gpxpy.parse(open(sys.argv[1]))
            pts = sum(len(s.points) for t in g.tracks for s in t.segments)
            segs = sum(len(t.segments) for t in g.tracks)
            d = Decoder(Stream.from_file(sys.argv[2]))
            ok = d.check_integrity()
            d = Decoder(Stream.from_file(sys.argv[2]))
            msgs, errors = d.read()
            s = msgs["session_mesgs"][0]
            length = sum(s.length_2d() for t in g.tracks for s in t.segments)
            print(json.dumps({"gpx_length": length, "gpx_points": pts, "gpx_segments": segs, "fit_ok": ok, "fit_errors": [str(e) for e in errors],
                              "fit_records": len(msgs.get("record_mesgs", [])),
                              "fit_distance": s.get("total_distance"), "fit_timer": s.get("total_timer_time"),
                              "fit_elapsed": s.get("total_elapsed_time")}))
            """
        let py = try run("/usr/bin/env", ["python3", "-c", script, gpx, fit], timeout: 60)
        #expect(py.status == 0, "python readers: \(py.err)")
        let read = try JSONSerialization.jsonObject(with: Data(py.out.utf8)) as? [String: Any] ?? [:]
        #expect(read["gpx_points"] as? Int == points)
        #expect((read["gpx_segments"] as? Int ?? 0) >= 1)
        print("GPX length by gpxpy: \(read["gpx_length"] ?? "?") m; stored distance \(show.stats.distance) m")
        #expect(read["fit_ok"] as? Bool == true)
        #expect((read["fit_errors"] as? [Any])?.isEmpty == true, "\(read)")
        #expect(read["fit_records"] as? Int == points)
        let fitDistance = try #require(read["fit_distance"] as? Double)
        #expect(abs(fitDistance - show.stats.distance) <= 0.001 * show.stats.distance + 0.01, "FIT \(fitDistance) vs \(show.stats.distance)")
        let fitTimer = try #require(read["fit_timer"] as? Double)
        #expect(abs(fitTimer - show.stats.moving) <= 0.001 * show.stats.moving + 1, "FIT timer \(fitTimer) vs moving \(show.stats.moving)")

        // The picture renders and is not blank.
        let png = rig.dir.appendingPathComponent("s.png").path
        let r = try run("/usr/bin/rsvg-convert", ["-o", png, svg])
        #expect(r.status == 0, "rsvg-convert: \(r.err)")
        let size = (try FileManager.default.attributesOfItem(atPath: png)[.size] as? Int) ?? 0
        #expect(size > 10_000)
    }
}
