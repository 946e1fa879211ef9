import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

/// Heart rate in every export, read back by the readers the rest of the
/// world uses: gpxpy (GPX TrackPointExtension v2), xmllint against the
/// published schemas (GPX 1.1, TCX v2), Garmin's FIT SDK (record, lap and
/// session heart rate, `hrv`).
@Suite("Export: heart rate")
struct HeartRateExportTests {
    /// The fixture run with a strap: a reading each second, a 40 s drop-out at
    /// 15 min (the strap out of range: no readings, a gap), no skin contact for
    /// 6 s at 25 min, two R–R intervals per reading (from 1/1024 s units, as a
    /// strap sends them), none during the gaps.
    static let session: ExportSession = {
        var s = ExportFixture.session()
        let start = s.startTime
        var readings: [HeartRatePoint] = []
        var rr: [RRInterval] = []
        var t = start
        while t <= start + s.stats.elapsed {
            defer { t += 1 }
            let k = t - start
            if (900..<940).contains(k) { continue }
            if (1500..<1506).contains(k) {
                readings.append(HeartRatePoint(time: t, bpm: .nan))
                continue
            }
            let bpm = (130 + 35 * sin(k / 400) + 4 * sin(k / 7)).rounded()
            readings.append(HeartRatePoint(time: t, bpm: bpm))
            let units = 60_000 / bpm * 1.024
            rr += [RRInterval(time: t, milliseconds: units.rounded(.down) * 1000 / 1024),
                   RRInterval(time: t, milliseconds: units.rounded(.up) * 1000 / 1024)]
        }
        // Each point carries the heart rate current when it was placed (5 s at most after its reading).
        var i = 0
        for p in s.points.indices {
            while i + 1 < readings.count, readings[i + 1].time <= s.points[p].time { i += 1 }
            let r = readings[i]
            s.points[p].heartRate = r.time <= s.points[p].time && s.points[p].time - r.time < 5 ? r.bpm : .nan
        }
        s.heartRate = readings
        s.rrIntervals = rr
        var profile = HeartRateProfile()
        profile.maxBPM = 190
        s.heartRateProfile = profile
        return s
    }()

    /// Whole bpm of each point as the formats write it (nil: left out).
    static var pointBPM: [Int?] {
        session.points.map { $0.heartRate.isFinite ? Int($0.heartRate.rounded()) : nil }
    }

    /// Average and maximum over a window's moving time, computed here second
    /// by second from the readings (not by the code under test).
    static func truth(from a: Double, to b: Double) -> (average: Double, maximum: Double) {
        let s = session
        var sum = 0.0, n = 0.0, top = 0.0
        var i = 0
        var t = a
        while t < b {
            defer { t += 0.25 }
            let paused = s.pauses.contains { t >= $0.start && t < $0.end }
            while i + 1 < s.heartRate.count, s.heartRate[i + 1].time <= t { i += 1 }
            let r = s.heartRate[i]
            guard !paused, r.time <= t, t - r.time < 5, r.bpm.isFinite else { continue }
            sum += r.bpm
            n += 1
        }
        for r in s.heartRate where r.time >= a && r.time <= b && r.bpm.isFinite {
            if !s.pauses.contains(where: { r.time >= $0.start && r.time < $0.end }) { top = max(top, r.bpm) }
        }
        return (sum / n, top)
    }

    static func write(_ data: Data, _ name: String) throws -> (URL, URL) {
        let dir = try makeScratchDirectory("hr")
        let file = dir.appendingPathComponent(name)
        try data.write(to: file)
        return (dir, file)
    }

    /// Where `make deps` unpacks pytrainer's schemas (`$MOONRUNNER_SCHEMAS`), else an installed pytrainer's.
    static let schemas = ProcessInfo.processInfo.environment["MOONRUNNER_SCHEMAS"] ?? "/usr/share/pytrainer/schemas"
    static let xmllintHint = "make deps (xmllint from libxml2-utils; the schemas unpacked from pytrainer's package into .build/schemas)"

    /// xmllint's verdict on `file` against `schema`; the schema must be installed (`make deps`).
    static func validate(_ file: URL, schema: String) throws -> ExternalTool.Result {
        let path = "\(schemas)/\(schema)"
        guard FileManager.default.fileExists(atPath: path) else {
            throw ExternalTool.Missing(tool: path, hint: xmllintHint)
        }
        return try ExternalTool.run("xmllint", ["--noout", "--schema", path, file.path], hint: xmllintHint)
    }

    @Test("the fixture has what the checks need: a gap, readings without contact, RR intervals")
    func fixture() {
        let bpm = Self.pointBPM
        #expect(bpm.filter { $0 == nil }.count >= 35 + 6, "points without a heart rate: the gap and no contact")
        #expect(bpm.compactMap { $0 }.count > 2000)
        #expect(Self.session.rrIntervals.count > 4000)
    }

    @Test("gpxpy reads gpxtpx:hr (TrackPointExtension v2) on exactly the points that have one; the file is valid GPX 1.1")
    func gpx() throws {
        let (dir, file) = try Self.write(GPXWriter.write(Self.session), "s.gpx")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try ExternalTool.python("""
            import json, sys, gpxpy
            gpx = gpxpy.parse(open(sys.argv[1]))
            out, ns = [], set()
            for track in gpx.tracks:
                for segment in track.segments:
                    for p in segment.points:
                        hr = None
                        for ext in p.extensions:
                            for child in ext.iter():
                                if child.tag.endswith('}hr'):
                                    hr = int(child.text)
                                    ns.add(child.tag.split('}')[0][1:])
                        out.append(hr)
            print(json.dumps({"hr": out, "ns": sorted(ns)}))
            """, [file.path])
        let hr = (r["hr"] as? [Any] ?? []).map { $0 as? Int }
        #expect(hr == Self.pointBPM, "gpxpy's heart rates differ from the points'")
        #expect(r["ns"] as? [String] == ["http://www.garmin.com/xmlschemas/TrackPointExtension/v2"])
        let valid = try Self.validate(file, schema: "Topografix_gpx11.xsd")
        #expect(valid.status == 0, "\(valid.stderr.prefix(1500))")
    }

    @Test("the TCX is valid against Garmin's TrainingCenterDatabase v2 schema and carries HeartRateBpm and each lap's average and maximum")
    func tcx() throws {
        let data = TCXWriter.write(Self.session)
        let (dir, file) = try Self.write(data, "s.tcx")
        defer { try? FileManager.default.removeItem(at: dir) }
        let valid = try Self.validate(file, schema: "GarminTrainingCenterDatabase_v2.xsd")
        #expect(valid.status == 0, "\(valid.stderr.prefix(1500))")
        let collector = TCXExportTests.Collector(["HeartRateBpm/Value", "AverageHeartRateBpm/Value",
                                                  "MaximumHeartRateBpm/Value"])
        let parser = XMLParser(data: data)
        parser.delegate = collector
        #expect(parser.parse())
        #expect(collector.values["HeartRateBpm/Value"]?.compactMap { Int($0) } == Self.pointBPM.compactMap { $0 })
        let laps = Self.session.laps
        let averages = collector.values["AverageHeartRateBpm/Value"]?.compactMap { Int($0) } ?? []
        let maxima = collector.values["MaximumHeartRateBpm/Value"]?.compactMap { Int($0) } ?? []
        #expect(averages.count == laps.count && maxima.count == laps.count)
        for (k, lap) in laps.enumerated() where k < averages.count && k < maxima.count {
            let truth = Self.truth(from: lap.startTime, to: lap.endTime)
            // Whole bpm in the file; the truth is sampled every 0.25 s.
            #expect(abs(Double(averages[k]) - truth.average) <= 0.6, "lap \(k + 1): \(averages[k]) vs \(truth.average)")
            #expect(maxima[k] == Int(truth.maximum), "lap \(k + 1)")
        }
    }

    @Test("Garmin's FIT SDK reads record.heart_rate where there is one, lap and session average and maximum, and every R–R interval to the ms in hrv messages")
    func fit() throws {
        let (dir, file) = try Self.write(FITWriter.write(Self.session), "s.fit")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try ExternalTool.python("""
            import json, sys
            from garmin_fit_sdk import Decoder, Stream
            messages, errors = Decoder(Stream.from_file(sys.argv[1])).read()
            rr = []
            for m in messages.get('hrv_mesgs', []):
                times = m.get('time')
                times = times if isinstance(times, list) else [times]
                rr += [round(t * 1000) for t in times if t is not None]
            s = messages['session_mesgs'][0]
            print(json.dumps({
                "errors": [str(e) for e in errors],
                "records": [r.get('heart_rate') for r in messages.get('record_mesgs', [])],
                "laps": [[l.get('avg_heart_rate'), l.get('max_heart_rate')] for l in messages.get('lap_mesgs', [])],
                "session": [s.get('avg_heart_rate'), s.get('max_heart_rate')],
                "rr": rr, "hrv": len(messages.get('hrv_mesgs', [])),
            }))
            """, [file.path])
        #expect((r["errors"] as? [String])?.isEmpty == true, "\(r["errors"] ?? "")")
        let records = (r["records"] as? [Any] ?? []).map { $0 as? Int }
        #expect(records == Self.pointBPM, "record.heart_rate differs from the points'")
        let rr = r["rr"] as? [Int] ?? []
        let sent = Self.session.rrIntervals.map { Int($0.milliseconds.rounded()) }
        #expect(rr == sent, "\(rr.count) R–R intervals read back, \(sent.count) recorded")
        // At most five to a message, and the ones of a record's second written
        // before it, so that a message's place in the file keeps their time.
        let hrv = r["hrv"] as? Int ?? 0
        #expect(hrv >= (sent.count + 4) / 5 && hrv <= Self.session.points.count + (sent.count + 4) / 5, "\(hrv) hrv messages")
        let session = r["session"] as? [Int] ?? []
        let truth = Self.truth(from: Self.session.startTime, to: Self.session.endTime)
        #expect(session.count == 2 && abs(Double(session[0]) - truth.average) <= 0.6 && session[1] == Int(truth.maximum),
                "session \(session) vs \(truth)")
        let laps = r["laps"] as? [[Int]] ?? []
        #expect(laps.count == Self.session.laps.count)
        for (k, lap) in Self.session.laps.enumerated() where k < laps.count {
            let t = Self.truth(from: lap.startTime, to: lap.endTime)
            #expect(abs(Double(laps[k][0]) - t.average) <= 0.6 && laps[k][1] == Int(t.maximum), "lap \(k + 1): \(laps[k]) vs \(t)")
        }
    }

    @Test("CSV hr_bpm and GeoJSON hr_bpm are empty or null where the heart rate is missing, never 0")
    func csvAndGeoJSON() throws {
        let csv = String(decoding: CSVWriter.write(Self.session), as: UTF8.self).split(separator: "\n")
        #expect(csv.first == Substring(CSVWriter.header))
        let hrIndex = try #require(CSVWriter.header.split(separator: ",").firstIndex(of: "hr_bpm"))
        let column = csv.dropFirst().map { line -> Int? in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            return cells.count > hrIndex ? Int(cells[hrIndex]) : nil
        }
        #expect(column == Self.pointBPM)
        let json = try JSONSerialization.jsonObject(with: GeoJSONWriter.write(Self.session)) as? [String: Any]
        let features = json?["features"] as? [[String: Any]] ?? []
        let values = features.flatMap { ($0["properties"] as? [String: Any])?["hr_bpm"] as? [Any] ?? [] }
        #expect(values.map { $0 as? Int } == Self.pointBPM)
        #expect(!values.contains { ($0 as? Int) == 0 })
    }
}
