import Foundation
import MoonRunnerProtocol
import MoonRunnerSensors
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

    @Test("the real logs are there (the replay test skips loudly otherwise)")
    func dataPresent() {
        if Self.logs.isEmpty {
            print("SKIPPED (LOUDLY): \(Self.folder.path) is absent; the gpsd log replay was NOT run")
        }
    }

    @Test("each log: no crash, every position fix delivered once", arguments: logs)
    func replay(log: String) async throws {
        let rig = try Rig("log")
        let nmea = Self.folder.appendingPathComponent("\(log).log")
        let sentences = (try String(contentsOf: nmea, encoding: .isoLatin1)).split(whereSeparator: \.isNewline).count
        
        try rig.startGPS(nmea: nmea, epochsPerSecond: 1000, sentencesPerEpoch: 1, pipe: true)
        try rig.startDaemon(speed: 1)
        // gpsfake waits 1.4 s for its own client, then feeds at 1000 sentences a second.
        try await Task.sleep(for: .seconds(1.4 + Double(sentences) / 1000 + 1))
        var last = -1
        _ = eventually(timeout: 20) {
            let n = (try? rig.status().gps.fixes) ?? -1
            defer { last = n }
            return n == last
        }
        // gpsfake's own client saw the same stream; it writes it out when told to stop.
        rig.gpsfake?.signal(SIGTERM)
        _ = rig.gpsfake?.wait(timeout: 10)
        let expected = try GPSTraceReader.parse(Data(contentsOf: rig.gpsfakeLog)).filter { $0.fix.hasPosition && $0.fix.time.isFinite }.count
        let s = try rig.status()
        #expect(s.gps.fixes == expected, "\(log): \(s.gps.fixes) position fixes, gpsd reported \(expected) in the same replay")
        #expect(expected > 0, "\(log): gpsd reported no fix at all")
        #expect(rig.daemon?.isRunning == true, "\(log): the daemon died: \(rig.daemon?.log.suffix(500) ?? "")")
    }
}
