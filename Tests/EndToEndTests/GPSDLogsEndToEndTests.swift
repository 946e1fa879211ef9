import Foundation
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore
import Testing

/// Every real receiver log of gpsd's regression suite, replayed through a
/// real gpsd (gpsfake) into the daemon: no crash, and exactly the position
/// fixes gpsd reported in that same replay (gpsfake's own client, `-p`, sees
/// the same stream; one fix per epoch).
@Suite("gpsd's real receiver logs through the daemon", .serialized)
struct GPSDLogsEndToEndTests {
    static let folder = Paths.data.appendingPathComponent("gps/real/gpsd-test-logs")

    static var logs: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".log") }.map { String($0.dropLast(4)) }.sorted()
    }

    static var folderPresent: Bool { FileManager.default.fileExists(atPath: folder.path) }

    /// A test with arguments runs once per argument: with none it would pass having run nothing.
    @Test("the folder holds the logs the replay runs over, each with its sentences",
          .enabled(if: GPSDLogsEndToEndTests.folderPresent, "the shared data's gps/real/gpsd-test-logs is absent (MOONRUNNER_DATA)"))
    func logsPresent() throws {
        #expect(!Self.logs.isEmpty, "no .log file in \(Self.folder.path)")
        for log in Self.logs {
            let text = try String(contentsOf: Self.folder.appendingPathComponent("\(log).log"), encoding: .isoLatin1)
            #expect(text.contains("$G"), "\(log).log has no NMEA sentence")
        }
    }

    @Test("each log: no crash; every fix gpsd reported after the daemon connected reaches the engine, once",
          .enabled(if: !GPSDLogsEndToEndTests.logs.isEmpty, "the shared data's gps/real/gpsd-test-logs holds no log (MOONRUNNER_DATA)"),
          arguments: logs)
    func replay(log: String) async throws {
        let rig = try Rig("log")
        let nmea = Self.folder.appendingPathComponent("\(log).log")
        let sentences = (try String(contentsOf: nmea, encoding: .isoLatin1)).split(whereSeparator: \.isNewline).count
        // The daemon records first (no auto-pause, so every fix becomes a track
        // point or a rejected fix in the store), then gpsd replays the log.
        try rig.startDaemon(speed: 1, config: "auto_pause:\n  enabled: false\n")
        #expect(try rig.cli("start").status == 0)
        // gpsfake's own client (-p) sees the whole stream: the reference.
        try rig.startGPS(nmea: nmea, epochsPerSecond: 1000, sentencesPerEpoch: 1, pipe: true)
        // gpsfake plays the log once (-1) and exits: waiting for that, not for
        // a fixed time, keeps a slow start under load from cutting it short.
        let ended = rig.gpsfake?.wait(timeout: 30 + Double(sentences) / 1000) != nil
        #expect(ended, "\(log): gpsfake did not finish its single pass: \(rig.gpsfake?.log.suffix(300) ?? "")")
        // The daemon has taken in the replay when its fix count holds still for 1.5 s.
        var last = -1
        var since = Date()
        _ = eventually(timeout: 20) {
            let n = (try? rig.status().gps.fixes) ?? -1
            if n != last {
                last = n
                since = Date()
            }
            return n >= 0 && Date().timeIntervalSince(since) >= 1.5
        }
        rig.gpsfake?.signal(SIGTERM)
        _ = rig.gpsfake?.wait(timeout: 10)
        #expect(try rig.cli("stop").status == 0)
        #expect(rig.daemon?.isRunning == true, "\(log): the daemon died: \(rig.daemon?.log.suffix(500) ?? "")")

        let reference = try GPSTraceReader.parse(Data(contentsOf: rig.gpsfakeLog))
            .filter { $0.fix.hasPosition && $0.fix.time.isFinite }.map(\.fix.time)
        #expect(!reference.isEmpty, "\(log): gpsd reported no fix at all")
        let id = try #require(try rig.status().session)
        let store = try SessionStore(directory: rig.state.path)
        let points = try await store.points(session: id).map(\.fixTime)
        let rejected = try await store.rejectedFixes(session: id).filter { $0.reason != .noFix && $0.reason != .noTime }
            .map(\.fix.time)
        // A fix is a track point, a rejected fix, or both (a rejected fix may still
        // move the dead-reckoned track): the epochs, to the millisecond.
        let ms = { (t: Double) in Int64((t * 1000).rounded()) }
        let received = Set((points + rejected).filter(\.isFinite).map(ms))
        let first = try #require(received.min(), "\(log): no fix reached the daemon")
        let expected = Set(reference.map(ms).filter { $0 >= first })
        let missing = expected.subtracting(received).sorted().prefix(5)
        let extra = received.subtracting(expected).sorted().prefix(5)
        #expect(received == expected, "\(log): \(received.count) epochs reached the engine, gpsd reported \(expected.count) from the daemon's first on; missing \(missing), extra \(extra)")
        #expect(received.count >= Set(reference.map(ms)).count / 2, "\(log): the daemon connected too late to check much")
        // Each epoch was handed over once.
        let s = try rig.status()
        #expect(s.gps.fixes == received.count, "\(log): STATUS counts \(s.gps.fixes) fixes for \(received.count) epochs")
    }
}
