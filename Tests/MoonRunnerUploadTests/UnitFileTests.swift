import Foundation
import MoonRunnerTestSupport
import Testing

@Suite("Upload: the service's unit and the recorder's sandbox",
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "systemd-analyze is not installed"))
struct UnitFileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func exposure(_ unit: String) throws -> Double? {
        let r = try run("/usr/bin/systemd-analyze", ["security", "--offline=true", root.appendingPathComponent("systemd/\(unit)").path],
                        timeout: 60)
        let line = r.out.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        return line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
    }

    static func settings(_ unit: String) throws -> [String] {
        try String(contentsOf: root.appendingPathComponent("systemd/\(unit)"), encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    @Test("moonrunner-upload's sandbox scores an exposure of 2.0 or less")
    func exposure() throws {
        let value = try #require(try Self.exposure("moonrunner-upload.service"))
        #expect(value <= 2.0, "exposure \(value)")
    }

    @Test("only the upload service reaches beyond loopback: the recorder, the web app and the announcer keep IPAddressDeny=any")
    func network() throws {
        #expect(try !Self.settings("moonrunner-upload.service").contains { $0.hasPrefix("IPAddressDeny=") })
        for unit in ["moonrunnerd.service", "moonrunner-web.service", "moonrunner-announce.service"] {
            #expect(try Self.settings(unit).contains("IPAddressDeny=any"), "\(unit)")
        }
        #expect(try Self.settings("moonrunnerd.service").contains("IPAddressAllow=localhost"), "the recorder: loopback only")
    }
}
