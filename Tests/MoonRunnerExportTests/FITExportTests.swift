import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

@Suite("Export: FIT")
struct FITExportTests {
    let session = ExportFixture.session()

    @Test("header: 14 bytes, .FIT, data size, header CRC; file CRC closes the file")
    func header() throws {
        let bytes = [UInt8](FITWriter.write(session))
        #expect(bytes[0] == 14 && bytes[1] == 0x20)
        #expect(Array(bytes[8..<12]) == Array(".FIT".utf8))
        let size = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        #expect(size == bytes.count - 16)
        let headerCRC = UInt16(bytes[12]) | UInt16(bytes[13]) << 8
        #expect(headerCRC == FITCRC.checksum(bytes[0..<12]))
        #expect(FITCRC.checksum(bytes) == 0)   // CRC over data + its own CRC is zero
    }

    static let decodeScript = """
        import json, sys
        from garmin_fit_sdk import Decoder, Stream
        stream = Stream.from_file(sys.argv[1])
        decoder = Decoder(stream)
        is_fit = decoder.is_fit()
        integrity = decoder.check_integrity()
        # The integrity check reads the stream to its end: decode from a fresh one.
        decoder = Decoder(Stream.from_file(sys.argv[1]))
        messages, errors = decoder.read(convert_datetimes_to_dates=False)
        records = messages.get('record_mesgs', [])
        sessions = messages.get('session_mesgs', [])
        laps = messages.get('lap_mesgs', [])
        events = messages.get('event_mesgs', [])
        acts = messages.get('activity_mesgs', [])
        fid = messages.get('file_id_mesgs', [{}])[0]
        s = sessions[0] if sessions else {}
        def num(v):
            return v if isinstance(v, (int, float)) else str(v)
        print(json.dumps({
            "is_fit": is_fit, "integrity": integrity, "errors": [str(e) for e in errors],
            "file_type": str(fid.get('type')), "manufacturer": str(fid.get('manufacturer')),
            "records": len(records), "sessions": len(sessions), "laps": len(laps), "activities": len(acts),
            "timer_events": [str(e.get('event_type')) for e in events if str(e.get('event')) == 'timer'],
            "total_distance": s.get('total_distance'), "total_timer_time": s.get('total_timer_time'),
            "total_elapsed_time": s.get('total_elapsed_time'), "sport": str(s.get('sport')),
            "num_laps": s.get('num_laps'), "total_calories": s.get('total_calories'),
            "avg_speed": s.get('avg_speed'), "session_start": s.get('start_time'),
            "lap_distances": [l.get('total_distance') for l in laps],
            "lap_timer": [l.get('total_timer_time') for l in laps],
            "first_record": {k: num(v) for k, v in records[0].items()} if records else {},
            "last_distance": records[-1].get('distance') if records else None,
            "cadences": [r.get('cadence', 0) + r.get('fractional_cadence', 0) for r in records],
            "altitudes": sum(1 for r in records if r.get('altitude') is not None),
            "total_strides": s.get('total_strides'),
        }))
        """

    @Test("Garmin's FIT SDK decodes it without errors: records, laps, session totals")
    func garminSDK() throws {
        let dir = try makeScratchDirectory("fit")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("s.fit")
        try FITWriter.write(session).write(to: file)
        let r = try ExternalTool.python(Self.decodeScript, [file.path])
        #expect(r["is_fit"] as? Bool == true)
        #expect(r["integrity"] as? Bool == true)
        #expect((r["errors"] as? [String])?.isEmpty == true, "\(r["errors"] ?? "")")
        #expect(r["file_type"] as? String == "activity")
        #expect(r["manufacturer"] as? String == "development")
        #expect(r["records"] as? Int == session.points.count)
        #expect(r["sessions"] as? Int == 1 && r["activities"] as? Int == 1)
        #expect(r["laps"] as? Int == session.laps.count && r["num_laps"] as? Int == session.laps.count)
        #expect(r["sport"] as? String == "running")
        #expect(r["timer_events"] as? [String] == ["start", "stop_all", "start", "stop_all"])

        let distance = try #require(r["total_distance"] as? Double)
        #expect(relativeError(distance, session.distance) < 0.001, "session total_distance \(distance)")
        let timer = try #require(r["total_timer_time"] as? Double)
        #expect(relativeError(timer, session.moving) < 0.001, "session total_timer_time \(timer)")
        let elapsed = try #require(r["total_elapsed_time"] as? Double)
        #expect(relativeError(elapsed, session.elapsed) < 0.001)
        let start = try #require(r["session_start"] as? Double)
        #expect(start == session.startTime - 631_065_600)
        let lapDistances = try #require(r["lap_distances"] as? [Double])
        #expect(relativeError(lapDistances.reduce(0, +), SessionTruth(session).distance) < 0.001)
        let lapTimers = try #require(r["lap_timer"] as? [Double])
        #expect(abs(lapTimers.reduce(0, +) - session.moving) < 0.01)
        #expect(abs((r["avg_speed"] as? Double ?? 0) - session.distance / session.moving) < 0.001)
        #expect(abs(Double(r["total_calories"] as? Int ?? 0) - session.calories) <= 1)
        let lastDistance = try #require(r["last_distance"] as? Double)
        #expect(abs(lastDistance - SessionTruth(session).distance) < 0.01)
        #expect(r["altitudes"] as? Int == session.points.count)
        // The SDK names running cycles "strides": steps / 2.
        #expect(r["total_strides"] as? Int == session.totalSteps / 2)

        // Position and altitude round-trip through semicircles and the 5/500 scaling.
        let first = try #require(r["first_record"] as? [String: Any])
        let lat = Double(first["position_lat"] as? Int ?? 0) * 180 / 2_147_483_648
        #expect(abs(lat - session.points[0].latitude) < 1e-6)
        #expect(abs((first["altitude"] as? Double ?? 0) - session.points[0].altitude) <= 0.1)
        #expect(abs((first["enhanced_altitude"] as? Double ?? 0) - session.points[0].altitude) <= 0.1)
        // Cadence: per-foot, with the fraction, i.e. half the step rate.
        let cadences = try #require(r["cadences"] as? [Double])
        #expect(abs(cadences[0] - 80) < 0.01)
        #expect(cadences.allSatisfy { $0 > 75 && $0 < 85 || $0 == 0 })
    }

    static let developerScript = """
        import json, sys
        from garmin_fit_sdk import Decoder, Stream
        decoder = Decoder(Stream.from_file(sys.argv[1]))
        messages, errors = decoder.read(convert_datetimes_to_dates=False)
        s = messages.get('session_mesgs', [{}])[0]
        names = {d.get('field_definition_number'): d.get('field_name') for d in messages.get('field_description_mesgs', [])}
        ids = messages.get('developer_data_id_mesgs', [])
        print(json.dumps({
            "errors": [str(e) for e in errors], "integrity": Decoder(Stream.from_file(sys.argv[1])).check_integrity(),
            "developer_ids": len(ids), "total_ascent": s.get('total_ascent'),
            "fields": {names.get(k, str(k)): v for k, v in s.get('developer_fields', {}).items()},
        }))
        """

    @Test("a session whose elevation came partly from a terrain model says its source and shares in developer fields")
    func elevationSource() throws {
        var dem = session
        dem.stats.demPoints = dem.points.count * 3 / 4
        dem.stats.points = dem.points.count
        dem.stats.altitudeSource = .dem
        let dir = try makeScratchDirectory("fitdem")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("d.fit")
        try FITWriter.write(dem).write(to: file)
        let r = try ExternalTool.python(Self.developerScript, [file.path])
        #expect((r["errors"] as? [String])?.isEmpty == true, "\(r["errors"] ?? "")")
        #expect(r["integrity"] as? Bool == true)
        #expect(r["developer_ids"] as? Int == 1)
        let fields = try #require(r["fields"] as? [String: Any])
        #expect(fields["altitude_source"] as? String == "dem", "\(fields)")
        #expect(fields["altitude_dem_share"] as? Int == 75)
        #expect(fields["altitude_gps_share"] as? Int == 25)
        #expect(fields["altitude_barometric_share"] as? Int == 0)
        #expect(r["total_ascent"] as? Int == Int(dem.stats.elevationGain.rounded()))

        // Without a terrain model nothing is added.
        let plainFile = dir.appendingPathComponent("p.fit")
        try FITWriter.write(session).write(to: plainFile)
        let plain = try ExternalTool.python(Self.developerScript, [plainFile.path])
        #expect(plain["developer_ids"] as? Int == 0)
        #expect((plain["fields"] as? [String: Any])?.isEmpty == true)
    }

    @Test("a walk is sport walking")
    func walk() throws {
        var shape = ExportFixture.Shape()
        shape.activity = .walk
        let walk = ExportFixture.session(shape)
        let dir = try makeScratchDirectory("fitwalk")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("w.fit")
        try FITWriter.write(walk).write(to: file)
        let r = try ExternalTool.python(Self.decodeScript, [file.path])
        #expect(r["sport"] as? String == "walking")
        #expect(r["integrity"] as? Bool == true)
    }
}
