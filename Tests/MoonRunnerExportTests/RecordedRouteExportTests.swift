import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

/// The shared recordings (MOONRUNNER_DATA, default ../shared/data next to the repository).
enum ExportSharedData {
    static var root: URL {
        let here = URL(fileURLWithPath: #filePath)   // …/Tests/MoonRunnerExportTests/X.swift
        let repo = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        if let d = ProcessInfo.processInfo.environment["MOONRUNNER_DATA"], !d.isEmpty {
            return URL(fileURLWithPath: d, relativeTo: repo).standardizedFileURL
        }
        return repo.appendingPathComponent("../shared/data").standardizedFileURL
    }

    static var trailTruth: URL { root.appendingPathComponent("gps/sim/c_trail.truth.json") }

    /// The planned courses of the simulated runs, nil when absent (the suite that reads them is then skipped).
    static var courses: URL? {
        let dir = root.appendingPathComponent("courses")
        return FileManager.default.fileExists(atPath: dir.path) ? dir : nil
    }

    static var available: Bool { FileManager.default.fileExists(atPath: trailTruth.path) }
}

/// The simulated 8 km trail run of the shared data (true 1 Hz positions,
/// ±40 m hills, a 3-minute stop), turned into a session: the stop is a
/// pause and the track resumes in a new stretch after it.
struct TrailSession {
    var session: ExportSession
    /// The generator's own length of the 1 Hz true positions (haversine).
    var trueDistance: Double

    init() throws {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: ExportSharedData.trailTruth))
        guard let truth = json as? [String: Any], let positions = truth["positions"] as? [String: Any],
              let ts = positions["t_s"] as? [Double], let lats = positions["lat"] as? [Double],
              let lons = positions["lon"] as? [Double], let alts = positions["alt_msl"] as? [Double],
              let speeds = positions["speed_mps"] as? [Double], let fixes = positions["has_fix"] as? [Int],
              let intervals = truth["intervals"] as? [[String: Any]],
              let trueDistance = truth["true_distance_haversine_1hz_m"] as? Double,
              let trueGain = truth["true_elevation_gain_m"] as? Double,
              let firstFix = truth["first_fix_utc"] as? String,
              let start = ISO8601DateFormatter().date(from: firstFix)?.timeIntervalSince1970 else {
            throw ExternalTool.Failure("unexpected layout of \(ExportSharedData.trailTruth.path)")
        }
        let stop = intervals.first { $0["label"] as? String == "stop" }
        let pauseStart = stop?["start_s"] as? Double ?? .infinity, pauseEnd = stop?["end_s"] as? Double ?? .infinity

        var points: [TrackPoint] = []
        var stepSeconds: [StepSecondSample] = []
        var carry = 0.0
        var resumed = false
        for i in ts.indices where fixes[i] == 1 {
            let t = ts[i]
            if t > pauseStart && t < pauseEnd { continue }
            let newSegment = t >= pauseEnd && !resumed
            if newSegment { resumed = true }
            points.append(TrackPoint(time: start + t, fixTime: start + t, latitude: lats[i], longitude: lons[i],
                                     altitude: alts[i], speed: speeds[i], course: .nan, eph: 5, newSegment: newSegment))
            if speeds[i] > 0.5 {
                let cadence = 150 + 6 * speeds[i]
                carry += cadence / 60
                let n = Int(carry)
                carry -= Double(n)
                if n > 0 { stepSeconds.append(StepSecondSample(second: Int64(start + t), steps: n, cadence: cadence)) }
            }
        }
        let end = start + (ts.last ?? 0)
        let pauses = [PauseInterval(start: start + pauseStart, end: start + pauseEnd, detectedAt: start + pauseStart,
                                    automatic: true)]
        var stats = SessionStats()
        stats.activity = .run
        stats.startTime = start
        stats.elapsed = end - start
        stats.moving = stats.elapsed - (pauseEnd - pauseStart)
        stats.distance = TrackDistance(points: points).total
        stats.steps = stepSeconds.reduce(0) { $0 + $1.steps }
        stats.maxSpeed = speeds.max() ?? 0
        stats.elevationGain = trueGain
        stats.elevationLoss = trueGain - ((points.last?.altitude ?? 0) - (points.first?.altitude ?? 0))
        let lap = SessionEvent(kind: .lap, time: start + 1000, detectedAt: start + 1000, cause: "command",
                               state: .recording)
        session = ExportSession(id: 3, activity: .run, startTime: start, endTime: end, stats: stats, points: points,
                                events: [lap], pauses: pauses, stepSeconds: stepSeconds)
        self.trueDistance = trueDistance
    }
}

@Suite("Export: a recorded-style trail run (shared data)", .enabled(if: ExportSharedData.available,
                                                                     "../shared/data is absent"))
struct RecordedRouteExportTests {
    @Test("track distance and splits agree with the generator's truth")
    func splits() throws {
        let trail = try TrailSession()
        let session = trail.session
        #expect(relativeError(session.distance, trail.trueDistance) < 0.001,
                "track \(session.distance) m vs generator \(trail.trueDistance) m")
        let splits = Splits.compute(points: session.points, pauses: session.pauses, units: .metric,
                                    start: session.startTime, end: session.endTime)
        #expect(splits.filter { !$0.isPartial }.count == Int(trail.trueDistance / 1000))
        #expect(abs(splits.map(\.moving).reduce(0, +) - session.moving) < 0.01)
        #expect(abs(splits.map(\.elapsed).reduce(0, +) - session.elapsed) < 0.01)
        // The stop is in one split: its elapsed time is three minutes longer than its moving time.
        #expect(splits.contains { $0.elapsed - $0.moving > 170 })
    }

    @Test("gpsbabel (GPX, TCX) and the FIT SDK measure the generator's distance within 0.1 %")
    func readers() throws {
        let trail = try TrailSession()
        let dir = try makeScratchDirectory("trail")
        defer { try? FileManager.default.removeItem(at: dir) }
        for (format, input) in [(ExportFormat.gpx, "gpx"), (.tcx, "gtrnctr")] {
            let file = dir.appendingPathComponent("t.\(format.fileExtension)")
            try format.export(trail.session).write(to: file)
            let points = try Gpsbabel.trackPoints(file, input: input)
            #expect(points.count == trail.session.points.count)
            let d = Gpsbabel.distance(points)
            #expect(relativeError(d, trail.trueDistance) < 0.001, "\(format): gpsbabel \(d) m vs \(trail.trueDistance) m")
        }
        let fit = dir.appendingPathComponent("t.fit")
        try FITWriter.write(trail.session).write(to: fit)
        let r = try ExternalTool.python(FITExportTests.decodeScript, [fit.path])
        #expect(r["integrity"] as? Bool == true && (r["errors"] as? [String])?.isEmpty == true)
        let total = try #require(r["total_distance"] as? Double)
        #expect(relativeError(total, trail.trueDistance) < 0.001, "FIT total_distance \(total) m")
        #expect(r["laps"] as? Int == 2)
        let svg = SVGRouteWriter.write(trail.session)
        keepSample(svg, name: "trail.svg")
        keepSample(GPXWriter.write(trail.session), name: "trail.gpx")
    }
}
