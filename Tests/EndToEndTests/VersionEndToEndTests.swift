import Foundation
import MoonRunnerProtocol
import Testing

/// `--version` as the GNU coding standards ask of every program: its name and
/// release on standard output ("moonrunnerd 0.1.0"), exit 0, with no daemon,
/// no socket and no config file.
@Suite("--version, end to end", .serialized)
struct VersionEndToEndTests {
    /// The four programs as the package installs them: moonrunner-web is a
    /// link to moonrunnerd and moonrunner-announce one to moonrunner, each
    /// told apart by the name it is called by.
    static func programs(in dir: URL) throws -> [String: String] {
        let web = dir.appendingPathComponent("moonrunner-web").path
        let announce = dir.appendingPathComponent("moonrunner-announce").path
        try FileManager.default.createSymbolicLink(atPath: web, withDestinationPath: Paths.daemon)
        try FileManager.default.createSymbolicLink(atPath: announce, withDestinationPath: Paths.cli)
        return ["moonrunner": Paths.cli, "moonrunnerd": Paths.daemon, "moonrunner-web": web,
                "moonrunner-announce": announce, "moonrunner-announce (its own build)": Paths.announcer]
    }

    @Test("each program prints the release and exits 0, needing no daemon", arguments: [
        "moonrunner", "moonrunnerd", "moonrunner-web", "moonrunner-announce", "moonrunner-announce (its own build)",
    ])
    func version(program: String) throws {
        let dir = try Paths.tempDir("version")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try #require(try Self.programs(in: dir)[program])
        // A socket and a config file that do not exist: --version reads neither.
        let r = try run(path, ["--version"], timeout: 20,
                        env: ["MOONRUNNER_SOCKET": dir.appendingPathComponent("absent.sock").path])
        #expect(r.status == 0, "\(program): exit \(r.status), \(r.err)")
        // GNU's form: the program's name, then the release after the last space.
        let name = program.split(separator: " ")[0]
        #expect(r.out == "\(name) \(MoonRunnerRelease.version)\n", "\(program) printed \(r.out.debugDescription)")
        #expect(r.err.isEmpty, "\(program): \(r.err)")
    }
}
