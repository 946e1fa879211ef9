import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

@Suite("Export: GeoJSON and CSV")
struct GeoJSONCSVExportTests {
    let session = ExportFixture.session()

    @Test("GeoJSON: a FeatureCollection with one LineString per stretch, all points, lon/lat order")
    func geojson() throws {
        let object = try JSONSerialization.jsonObject(with: GeoJSONWriter.write(session))
        let collection = try #require(object as? [String: Any])
        #expect(collection["type"] as? String == "FeatureCollection")
        let features = try #require(collection["features"] as? [[String: Any]])
        let truth = SessionTruth(session)
        #expect(features.count == truth.stretches)
        var positions = 0
        var length = 0.0
        for feature in features {
            let geometry = try #require(feature["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "LineString")
            let coordinates = try #require(geometry["coordinates"] as? [[Double]])
            positions += coordinates.count
            #expect(coordinates.allSatisfy { $0.count == 3 })
            for (a, b) in zip(coordinates, coordinates.dropFirst()) {
                length += Geodesy.distance(lat1: a[1], lon1: a[0], lat2: b[1], lon2: b[0])
            }
            let properties = try #require(feature["properties"] as? [String: Any])
            #expect((properties["coordTimes"] as? [String])?.count == coordinates.count)
            #expect((properties["stroke"] as? String)?.hasPrefix("#") == true)
        }
        #expect(positions == truth.points)
        #expect(relativeError(length, truth.distance) < 0.0001)
        let first = try #require((features[0]["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        #expect(abs(first[0][0] - session.points[0].longitude) < 1e-7)
        let summary = try #require(collection["session"] as? [String: Any])
        #expect(summary["id"] as? Int == 12 && summary["laps"] as? Int == 3)
    }

    @Test("CSV: a header and one row per point, cumulative distance, segments numbered")
    func csv() throws {
        let text = String(decoding: CSVWriter.write(session), as: UTF8.self)
        let rows = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.first?.joined(separator: ",") == CSVWriter.header)
        #expect(rows.count == session.points.count + 1)
        #expect(rows.dropFirst().allSatisfy { $0.count == 10 && $0[9] == "gps" })
        let segments = Set(rows.dropFirst().compactMap { Int($0[7]) })
        #expect(segments == [1, 2])
        let lastDistance = try #require(rows.last.flatMap { Double($0[5]) })
        #expect(abs(lastDistance - SessionTruth(session).distance) < 0.01)
        #expect(rows[1][0] == "2024-05-01T07:30:00Z")
        #expect(Double(rows[1][6]) == 160)
    }

    @Test("CSV: each point's ele_source; a terrain session's points between terrain_lost and terrain_regained are GPS's")
    func csvSources() {
        var s = ExportFixture.session()
        s.stats.demPoints = s.points.count - 10
        s.stats.altitudeSource = .dem
        let lost = s.points[20].time, back = s.points[30].time
        s.events += [SessionEvent(kind: .terrainLost, time: lost, detectedAt: lost + 2, cause: "terrain", state: .recording,
                                  detail: "no tile N48E011"),
                     SessionEvent(kind: .terrainRegained, time: back, detectedAt: back + 2, cause: "terrain", state: .recording)]
        let rows = String(decoding: CSVWriter.write(s), as: UTF8.self).split(separator: "\n").dropFirst()
        let sources = rows.map { $0.split(separator: ",", omittingEmptySubsequences: false).last.map(String.init) ?? "" }
        #expect(sources.count == s.points.count)
        #expect(sources[20..<30].allSatisfy { $0 == "gps" } && sources[30] == "dem" && sources[19] == "dem")
        #expect(sources.filter { $0 == "gps" }.count == 10)
        var baro = ExportFixture.session()
        baro.stats.altitudeSource = .barometric
        baro.stats.demPoints = 5
        #expect(PointAltitudeSources.of(baro).allSatisfy { $0 == .barometric })
    }

    static let csvScript = """
        import csv, json, sys
        with open(sys.argv[1], newline='') as f:
            rows = list(csv.DictReader(f))
        print(json.dumps({"rows": len(rows), "columns": list(rows[0].keys()) if rows else [],
                          "segments": len(set(r['segment'] for r in rows)),
                          "max_distance": max(float(r['distance_m']) for r in rows)}))
        """

    @Test("Python's csv module reads the CSV")
    func pythonCSV() throws {
        let dir = try makeScratchDirectory("csv")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("s.csv")
        try CSVWriter.write(session).write(to: file)
        let r = try ExternalTool.python(Self.csvScript, [file.path])
        #expect(r["rows"] as? Int == session.points.count)
        #expect(r["segments"] as? Int == 2)
        #expect((r["columns"] as? [String])?.count == 10)
    }
}
