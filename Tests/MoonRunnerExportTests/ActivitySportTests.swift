import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

@Suite("Export: each activity under its own sport")
struct ActivitySportTests {
    static let readBack = """
        import json, sys
        import gpxpy
        from garmin_fit_sdk import Decoder, Stream
        messages, errors = Decoder(Stream.from_file(sys.argv[1])).read(convert_datetimes_to_dates=False)
        s = messages.get('session_mesgs', [{}])[0]
        with open(sys.argv[2]) as f:
            gpx = gpxpy.parse(f)
        print(json.dumps({"errors": [str(e) for e in errors], "sport": str(s.get('sport')),
                          "sub_sport": str(s.get('sub_sport')),
                          "laps": sorted(set(str(l.get('sport')) for l in messages.get('lap_mesgs', []))),
                          "gpx_type": gpx.tracks[0].type}))
        """

    @Test("Garmin's FIT SDK and gpxpy read each activity's sport back; TCX says Running, Biking or Other",
          arguments: [(Activity.run, "running", "generic", "Running", "running"),
                      (.trailRun, "running", "trail", "Running", "trail_running"),
                      (.walk, "walking", "generic", "Other", "walking"),
                      (.hike, "hiking", "generic", "Other", "hiking"),
                      (.ride, "cycling", "road", "Biking", "cycling")])
    func sport(activity: Activity, fit: String, sub: String, tcx: String, gpx: String) throws {
        var shape = ExportFixture.Shape()
        shape.activity = activity
        let session = ExportFixture.session(shape)
        let dir = try makeScratchDirectory("sport")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fitFile = dir.appendingPathComponent("s.fit"), gpxFile = dir.appendingPathComponent("s.gpx")
        try FITWriter.write(session).write(to: fitFile)
        try GPXWriter.write(session).write(to: gpxFile)
        let r = try ExternalTool.python(Self.readBack, [fitFile.path, gpxFile.path])
        #expect((r["errors"] as? [String])?.isEmpty == true)
        #expect(r["sport"] as? String == fit && r["sub_sport"] as? String == sub)
        #expect(r["laps"] as? [String] == [fit])
        #expect(r["gpx_type"] as? String == gpx)
        let text = String(decoding: TCXWriter.write(session), as: UTF8.self)
        #expect(text.contains("<Activity Sport=\"\(tcx)\">"))
        #expect(session.title == "MoonRunner \(activity.profile.sport.noun) 12")
    }
}
