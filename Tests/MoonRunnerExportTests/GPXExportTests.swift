import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

@Suite("Export: GPX")
struct GPXExportTests {
    let session = ExportFixture.session()

    @Test("GPX 1.1 with namespaces, one trkseg per stretch, cadence as strides per minute")
    func structure() throws {
        let text = String(decoding: GPXWriter.write(session), as: UTF8.self)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\""))
        #expect(text.contains("xmlns=\"http://www.topografix.com/GPX/1/1\""))
        #expect(text.contains("xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v2\""))
        #expect(text.contains("http://www.topografix.com/GPX/1/1/gpx.xsd"))
        #expect(text.components(separatedBy: "<trkseg>").count - 1 == SessionTruth(session).stretches)
        #expect(text.components(separatedBy: "<trkpt ").count - 1 == session.points.count)
        #expect(text.contains("<time>2024-05-01T07:30:00Z</time>"))
        #expect(text.contains("<gpxtpx:cad>80</gpxtpx:cad>"))
        // Well-formed XML by Foundation's parser.
        let parser = XMLParser(data: GPXWriter.write(session))
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
    }

    @Test("gpsbabel reads the GPX back: points, duration and distance within 0.1 %")
    func gpsbabel() throws {
        let dir = try makeScratchDirectory("gpx")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("s.gpx")
        try GPXWriter.write(session).write(to: file)
        let points = try Gpsbabel.trackPoints(file, input: "gpx")
        let truth = SessionTruth(session)
        #expect(points.count == truth.points)
        let span = (points.last?.time ?? 0) - (points.first?.time ?? 0)
        #expect(relativeError(span, truth.span) < 0.001, "gpsbabel duration \(span) s vs \(truth.span) s")
        let distance = Gpsbabel.distance(points)
        #expect(relativeError(distance, truth.distance) < 0.001, "gpsbabel distance \(distance) m vs \(truth.distance) m")
        // Cadence survives as per-foot strides (about 80 for 160 steps/min).
        let cadences = points.compactMap(\.cadence)
        #expect(cadences.count == truth.points && cadences.allSatisfy { $0 >= 70 && $0 <= 90 })

        // gpsbabel's own GPX writer keeps the stretches as segments.
        let round = try ExternalTool.run("gpsbabel", ["-t", "-i", "gpx", "-f", file.path, "-o", "gpx", "-F", "-"],
                                         hint: ExternalTool.gpsbabelHint)
        #expect(round.stdout.components(separatedBy: "<trkseg>").count - 1 == truth.stretches)
    }

    static let gpxpyScript = """
        import json, sys
        import gpxpy
        with open(sys.argv[1]) as f:
            g = gpxpy.parse(f)
        segs = [s for t in g.tracks for s in t.segments]
        cad = []
        for s in segs:
            for p in s.points:
                for e in p.extensions:
                    for c in e.iter():
                        if c.tag.endswith('cad'):
                            cad.append(float(c.text))
        first = segs[0].points[0].time if segs else None
        last = segs[-1].points[-1].time if segs else None
        print(json.dumps({
            "tracks": len(g.tracks), "segments": len(segs),
            "points": sum(len(s.points) for s in segs),
            "length_2d": g.length_2d(),
            "span": (last - first).total_seconds() if first and last else 0,
            "elevation_points": sum(1 for s in segs for p in s.points if p.elevation is not None),
            "cadence_count": len(cad), "cadence_mean": sum(cad) / len(cad) if cad else 0,
        }))
        """

    @Test("gpxpy reads the GPX: segments, points, length_2d within 0.1 %")
    func gpxpy() throws {
        let dir = try makeScratchDirectory("gpxpy")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("s.gpx")
        try GPXWriter.write(session).write(to: file)
        let r = try ExternalTool.python(Self.gpxpyScript, [file.path])
        let truth = SessionTruth(session)
        #expect(r["tracks"] as? Int == 1)
        #expect(r["segments"] as? Int == truth.stretches)
        #expect(r["points"] as? Int == truth.points)
        #expect(r["elevation_points"] as? Int == truth.points)
        // gpxpy measures on a sphere of the equatorial radius (geo.py EARTH_RADIUS = 6378.137 km),
        // MoonRunner on the mean radius (6371.0088 km): the same track is 0.11 % longer in gpxpy.
        // Compare in gpxpy's metres.
        let length = try #require(r["length_2d"] as? Double)
        let expected = truth.distance * 6_378_137 / Geodesy.earthRadius
        #expect(relativeError(length, expected) < 0.001, "gpxpy length_2d \(length) m vs \(expected) m")
        #expect(relativeError(try #require(r["span"] as? Double), truth.span) < 0.001)
        #expect(r["cadence_count"] as? Int == truth.points)
        let meanCadence = try #require(r["cadence_mean"] as? Double)
        let steps = Double(session.totalSteps), moving = session.moving
        #expect(abs(meanCadence - steps / moving * 60 / 2) < 3, "mean gpxtpx:cad \(meanCadence)")
    }

    @Test("a walk is typed walking and a session without steps has no cadence extension")
    func walkWithoutSteps() {
        var shape = ExportFixture.Shape()
        shape.activity = .walk
        var walk = ExportFixture.session(shape)
        walk.stepSeconds = []
        let text = String(decoding: GPXWriter.write(walk), as: UTF8.self)
        #expect(text.contains("<type>walking</type>"))
        #expect(!text.contains("gpxtpx:cad"))
    }
}
