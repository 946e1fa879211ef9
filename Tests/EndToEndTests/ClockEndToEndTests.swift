import Foundation
import MoonRunnerProtocol
import Testing

/// Debian's libfaketime, in the multiarch folder of this machine; nil when `faketime` is not installed.
/// (Outside the suite: its trait cannot name a member of the type it is attached to.)
var libfaketime: String? {
    let dirs = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
    return dirs.map { "/usr/lib/\($0)/faketime/libfaketime.so.1" }.first { FileManager.default.fileExists(atPath: $0) }
}

/// A Pi has no real-time clock: off the network it boots with the time of its
/// last shutdown or 1970, and learns UTC from the receiver. The daemon runs
/// under libfaketime (Debian `faketime`) with its system clock three years
/// back, or stepped by two hours in the middle of a session, while gpsfake
/// replays a correctly dated 2024 run. CLOCK_MONOTONIC is left alone, as it is
/// when chrony or gpsd set the clock.
@Suite("Time on a Pi without a clock (libfaketime)", .serialized,
       .enabled(if: libfaketime != nil, "libfaketime is not installed (Debian faketime; make test installs it)"),
       .enabled(if: FileManager.default.fileExists(atPath: Paths.data.appendingPathComponent("gps/sim/e_intervals.nmea").path),
                "the shared data's gps/sim/e_intervals.nmea is absent (MOONRUNNER_DATA)"))
struct ClockEndToEndTests {
    static let scenario = "e_intervals"
    static let epochs = 420
    static let speed = 20.0

    /// The scenario's first `epochs` epochs (each begins with a GGA sentence) and its first fix's UTC.
    static func cut(into dir: URL) throws -> (nmea: URL, firstFix: Double) {
        let sim = Paths.data.appendingPathComponent("gps/sim")
        let text = try String(contentsOf: sim.appendingPathComponent("\(scenario).nmea"), encoding: .utf8)
        var out: [Substring] = []
        var seen = 0
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("$GPGGA") {
                seen += 1
                if seen > epochs { break }
            }
            out.append(line)
        }
        let nmea = dir.appendingPathComponent("cut.nmea")
        try (out.joined(separator: "\r\n") + "\r\n").write(to: nmea, atomically: true, encoding: .utf8)
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: sim.appendingPathComponent("\(scenario).truth.json")))
        let first = (truth as? [String: Any])?["first_fix_utc"] as? String ?? ""
        let f = ISO8601DateFormatter()
        return (nmea, try #require(f.date(from: first)).timeIntervalSince1970)
    }

    /// Every `<time>` of a GPX file, as UNIX seconds.
    static func gpxTimes(_ path: String) throws -> [Double] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        var times: [Double] = []
        var rest = Substring(text)
        while let open = rest.range(of: "<time>"), let close = rest.range(of: "</time>", range: open.upperBound..<rest.endIndex) {
            let s = String(rest[open.upperBound..<close.lowerBound])
            if let d = f.date(from: s) ?? plain.date(from: s) { times.append(d.timeIntervalSince1970) }
            rest = rest[close.upperBound...]
        }
        return times
    }

    func env(_ lib: String, _ extra: [String: String]) -> [String: String] {
        ["LD_PRELOAD": lib, "FAKETIME_DONT_FAKE_MONOTONIC": "1"].merging(extra) { $1 }
    }

    /// Records the cut run with a session started before the first fix; returns the session.
    func record(_ rig: Rig, env: [String: String], midway: () throws -> Void = {}) throws -> (SessionReply, StatusReply) {
        let (nmea, _) = try Self.cut(into: rig.dir)
        try rig.startGPS(nmea: nmea, epochsPerSecond: Self.speed, sentencesPerEpoch: 8)
        try rig.startDaemon(speed: Self.speed, config: "auto_pause:\n  enabled: true\n", env: env)
        #expect(try rig.cli("start", "--activity", "run").status == 0)
        let started = try rig.status()
        #expect(started.gps.fixes == 0, "the session should start before the first fix")
        _ = try rig.waitFor(timeout: 60, "a third of the run") { $0.gps.fixes > Self.epochs / 3 }
        try midway()
        let late = try rig.waitFor(timeout: 90, "the end of the run") { $0.gps.fixes >= Self.epochs - 40 }
        #expect(try rig.cli("stop").status == 0)
        let id = try #require(late.session)
        return (try rig.session(id), late)
    }

    @Test("the system clock three years back: SESSIONS, STATUS and every export carry the receiver's 2024 UTC")
    func threeYearsBack() throws {
        let lib = try #require(libfaketime)
        let rig = try Rig("clock3y")
        let (_, firstFix) = try Self.cut(into: rig.dir)
        let (show, late) = try record(rig, env: env(lib, ["FAKETIME": "-1096d"]))
        let span = firstFix...(firstFix + Double(Self.epochs) + 60)
        // The system clock said 2023; the session is in May 2024, as the receiver says.
        #expect(show.session.startTime > firstFix - 120 && show.session.startTime < firstFix + 10,
                "start \(show.session.startTime), first fix \(firstFix)")
        let end = try #require(show.session.endTime)
        #expect(span.contains(end), "end \(end)")
        #expect(abs((end - show.session.startTime) - show.stats.elapsed) < 1)
        #expect(span.contains(late.time), "STATUS.time \(late.time) is not the receiver's")
        let listed = try rig.cli("sessions", "--json")
        #expect(listed.out.contains("\(Int(show.session.startTime))"), "SESSIONS: \(listed.out.prefix(300))")

        // Exports: every point time in the run's span, in order.
        let gpx = rig.dir.appendingPathComponent("s.gpx").path
        #expect(try rig.cli("export", String(show.session.id), "--format", "gpx", "-o", gpx).status == 0)
        let times = try Self.gpxTimes(gpx)
        #expect(times.count > 100)
        #expect(times.allSatisfy { $0 >= show.session.startTime - 1 && $0 <= end + 1 }, "GPX times outside the session")
        #expect(zip(times.dropFirst(2), times.dropFirst(3)).allSatisfy { $0 <= $1 }, "GPX point times out of order")
        let fit = rig.dir.appendingPathComponent("s.fit").path
        #expect(try rig.cli("export", String(show.session.id), "--format", "fit", "-o", fit).status == 0)
        let py = try run("/usr/bin/env", ["python3", "-c", """
            import sys
            from garmin_fit_sdk import Decoder, Stream
            m, e = Decoder(Stream.from_file(sys.argv[1])).read()
            t = [r["timestamp"].timestamp() for r in m["record_mesgs"]]
            print(m["session_mesgs"][0]["start_time"].timestamp(), min(t), max(t), all(b >= a for a, b in zip(t, t[1:])))
            """, fit])
        let parts = py.out.split(separator: " ")
        #expect(py.status == 0 && parts.count == 4, "\(py.err)")
        if parts.count == 4 {
            #expect(abs((Double(parts[0]) ?? 0) - show.session.startTime) < 1, "FIT start \(parts[0])")
            #expect(span.contains(Double(parts[2]) ?? 0), "FIT last record \(parts[2])")
            #expect(parts[3].hasPrefix("True"), "FIT records out of order")
        }
    }

    @Test("the system clock steps +2 h mid-session: no elapsed or moving time, pause or point order changes")
    func stepMidSession() throws {
        let lib = try #require(libfaketime)
        let rig = try Rig("clockstep")
        let file = rig.dir.appendingPathComponent("faketime.rc")
        try "+0\n".write(to: file, atomically: true, encoding: .utf8)
        let (_, firstFix) = try Self.cut(into: rig.dir)
        var before: StatusReply?
        let (show, late) = try record(rig, env: env(lib, ["FAKETIME_TIMESTAMP_FILE": file.path, "FAKETIME_NO_CACHE": "1"])) {
            before = try rig.status()
            try "+2h\n".write(to: file, atomically: true, encoding: .utf8)
        }
        let mid = try #require(before)
        // The step reached the daemon: its log's wall-clock stamps jump by two hours.
        let log = rig.daemon?.log ?? ""
        let f = ISO8601DateFormatter()
        let stamps = log.split(whereSeparator: \.isNewline).compactMap { f.date(from: String($0.prefix(24))) }
        if let a = stamps.first, let b = stamps.last {
            #expect(b.timeIntervalSince(a) > 7000, "the daemon's wall clock did not step: \(a) … \(b)")
        }
        // Receiver time throughout; durations as the receiver counts them.
        let end = try #require(show.session.endTime)
        #expect(end - show.session.startTime < Double(Self.epochs) + 60, "elapsed \(end - show.session.startTime) s")
        #expect(abs((end - show.session.startTime) - show.stats.elapsed) < 1)
        #expect(late.time - mid.time > 0 && late.time - mid.time < Double(Self.epochs), "STATUS.time went \(mid.time) → \(late.time)")
        #expect(late.time < firstFix + Double(Self.epochs) + 60)
        #expect(show.stats.moving <= show.stats.elapsed)
        for p in show.pauses {
            #expect(p.start >= show.session.startTime && (p.end.isFinite ? p.end : end) <= end + 0.5 && (p.end.isFinite ? p.end : end) >= p.start)
        }
        let gpx = rig.dir.appendingPathComponent("s.gpx").path
        #expect(try rig.cli("export", String(show.session.id), "--format", "gpx", "-o", gpx).status == 0)
        let times = try Self.gpxTimes(gpx).dropFirst(2)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "GPX point times out of order")
        #expect(times.allSatisfy { $0 <= end + 1 }, "GPX times after the session's end")
    }
}
