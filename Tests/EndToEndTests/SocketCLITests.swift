import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
import Testing

/// The `moonrunner` command line tool against a real daemon (and, for the
/// streamed replies, a scripted one): every subcommand, text and JSON,
/// units, exit codes, shell completion.
@Suite("moonrunner CLI, end to end", .serialized)
struct SocketCLITests {
    @Test("every request has a subcommand; text, --json, units and exit codes")
    func subcommands() throws {
        let rig = try Rig("cli")
        try rig.startGPS(epochsPerSecond: 10)
        let d = try SocketDaemon(rig)
        func cli(_ args: String...) throws -> (status: Int32, out: String, err: String) { try d.cli(args) }

        let version = try cli("version")
        #expect(version.status == 0 && version.out.contains("protocol \(ProtocolVersion.major).\(ProtocolVersion.minor)"))
        #expect(try cli("version", "--json").out.hasPrefix(#"{"class":"VERSION""#))
        let config = try cli("config")
        #expect(config.status == 0 && config.out.contains("socket:") && config.out.contains("  max_line_bytes: 4096"))
        #expect(try cli("config", "--json").out.hasPrefix(#"{"class":"CONFIG""#))
        #expect(try cli("status").out.contains("State     idle"))

        // Refusals: exit 1 and the code on stderr; with --json the ERROR on stdout.
        let pause = try cli("pause")
        #expect(pause.status == 1 && pause.err.contains("invalid_state"))
        let pauseJSON = try cli("--json", "pause")
        #expect(pauseJSON.status == 1)
        #expect(try ReplyEncoder.decode(ErrorReply.self, from: pauseJSON.out).code == .invalidState)

        let start = try cli("start", "--activity", "walk")
        #expect(start.status == 0, "\(start.err)")
        #expect(start.out.contains("State     recording") || start.out.contains("State     autoPaused"))
        #expect(try cli("start").status == 1)
        _ = try d.waitFor(timeout: 30, "distance") { $0.distanceM > 20 }
        #expect(try cli("lap").status == 0)
        #expect(try cli("pause").status == 0)
        #expect(try d.status().state == .paused)
        #expect(try cli("resume").status == 0)

        // Units: the daemon's (metric) unless told; global options before or after the subcommand.
        // The climb in metres or feet ("+3 m / -2 m", or "0 m" on flat ground, as the phone shows it).
        func climb(_ out: String) -> String { out.split(separator: "\n").first { $0.hasPrefix("Elevation") }.map(String.init) ?? "" }
        let metric = try cli("status")
        #expect(metric.out.contains(" km") && metric.out.contains("min/km"))
        #expect(climb(metric.out).contains(" m ") && !climb(metric.out).contains(" ft"), "\(climb(metric.out))")
        let imperial = try cli("--imperial", "status")
        #expect(imperial.out.contains(" mi") && imperial.out.contains("min/mi"))
        #expect(climb(imperial.out).contains(" ft ") && !climb(imperial.out).contains(" m "), "\(climb(imperial.out))")
        #expect(try cli("status", "--imperial").out.contains(" mi"))
        #expect(try cli("--json", "status").out.hasPrefix(#"{"class":"STATUS""#))

        let stop = try cli("stop", "--json")
        #expect(stop.status == 0)
        let stopped = try ReplyEncoder.decode(StatusReply.self, from: stop.out)
        #expect(stopped.state == .stopped)
        let id = try #require(stopped.session)

        let list = try cli("sessions")
        #expect(list.status == 0 && list.out.contains("ACTIVITY") && list.out.contains(" km"))
        #expect(list.out.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(id) ") })
        let listJSON = try ReplyEncoder.decode(SessionsReply.self, from: try cli("sessions", "--json", "--limit", "1").out)
        #expect(listJSON.sessions.map(\.id) == [id])
        let show = try cli("show", String(id), "--imperial")
        #expect(show.status == 0 && show.out.contains("Session   #\(id) walk, stopped") && show.out.contains(" mi"))
        let missing = try cli("show", "99999")
        #expect(missing.status == 1 && missing.err.contains("not_found"))
        #expect(try cli("delete", String(id)).out.contains("deleted session #\(id)"))
        #expect(try cli("show", String(id)).status == 1)

        // Usage errors are 64, before anything is sent.
        for args in [["sessions", "--limit", "0"], ["start", "--activity", "swim"], ["export", "1", "--format", "kml"],
                     ["fly"], ["status", "--imperial", "--metric"], ["show"]] {
            let r = try d.cli(args)
            #expect(r.status == 64, "\(args): \(r.status) \(r.err)")
        }
        // Not reachable: 69.
        let absent = try run(Paths.cli, ["--socket", rig.dir.appendingPathComponent("none.sock").path, "status"])
        #expect(absent.status == 69 && absent.err.contains("not running"))
        #expect(d.child.isRunning)
    }

    @Test("watch: one screen redrawn in place in a terminal (cursor hidden, then restored), lines when piped")
    func watchScreens() throws {
        let rig = try Rig("watchtty")
        let d = try SocketDaemon(rig)
        #expect(try d.cli(["start"]).status == 0)
        let piped = try d.cli(["watch", "--count", "2"])
        #expect(piped.status == 0)
        #expect(!piped.out.contains("\u{1B}["))
        #expect(piped.out.split(separator: "\n").filter { $0.contains(" elapsed ") }.count == 2)
        // script(1) is Debian's bsdutils, an essential package: always there.
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "no script(1) to give watch a terminal")
        // script(1) runs it on a pseudo-terminal.
        let command = "\(Paths.cli) --socket \(d.socket) watch --count 3"
        let tty = try run("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(tty.status == 0, "\(tty.err)")
        let screen = tty.out
        #expect(screen.hasPrefix("\u{1B}[?25l\u{1B}[2J"), "hides the cursor and clears once")
        #expect(screen.components(separatedBy: "\u{1B}[H").count - 1 == 3, "redraws from the top, once per update")
        #expect(!screen.dropFirst(12).contains("\u{1B}[2J"), "never clears again (no flicker)")
        #expect(screen.contains("Distance   0.") && screen.contains("Ctrl-C to quit"))
        #expect(screen.hasSuffix("\u{1B}[?25h"), "gives the cursor back")
    }

    @Test("the daemon's configured units are the default; --metric overrides them")
    func daemonUnits() throws {
        let rig = try Rig("units")
        let d = try SocketDaemon(rig, config: "units: imperial\n")
        #expect(try d.cli(["status"]).out.contains("0.00 mi"))
        #expect(try d.cli(["status", "--metric"]).out.contains("0.00 km"))
        #expect(try d.cli(["sessions"]).status == 0)
    }

    @Test("shell completion: scripts for bash, zsh and fish; bash completes subcommands, values and session ids")
    func completion() throws {
        for shell in ["bash", "zsh", "fish"] {
            let r = try run(Paths.cli, ["--generate-completion-script", shell])
            #expect(r.status == 0)
            #expect(r.out.contains("export") && r.out.contains("badges") && r.out.contains("socket"), "\(shell)")
        }
        try #require(FileManager.default.isExecutableFile(atPath: "/bin/bash"), "no bash (essential in Debian) to try the completion script in")
        let rig = try Rig("compl")
        let d = try SocketDaemon(rig)
        #expect(try d.cli(["start"]).status == 0)
        #expect(try d.cli(["stop"]).status == 0)
        #expect(try d.cli(["start"]).status == 0)
        #expect(try d.cli(["stop"]).status == 0)
        let script = rig.dir.appendingPathComponent("complete.sh")
        try """
            source <("$CLI" --generate-completion-script bash)
            complete_line() {
                COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
                read -ra COMP_WORDS <<< "$1"
                [[ "$1" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
                _moonrunner moonrunner "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                echo "${COMPREPLY[*]}"
            }
            complete_line "$CLI s"
            complete_line "$CLI --socket $SOCK --json st"
            complete_line "$CLI export 1 --format "
            complete_line "$CLI --socket $SOCK show "
            complete_line "$CLI delete --socket $SOCK "
            """.write(to: script, atomically: true, encoding: .utf8)
        let r = try run("/bin/bash", [script.path], env: ["CLI": Paths.cli, "SOCK": d.socket])
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count >= 5, "\(r.out) \(r.err)")
        guard lines.count >= 5 else { return }
        #expect(lines[0].split(separator: " ").sorted() == ["sessions", "show", "start", "status", "stop"])
        #expect(lines[1].split(separator: " ").sorted() == ["start", "status", "stop"])
        #expect(lines[2] == "gpx tcx fit geojson csv svg")
        #expect(lines[3].split(separator: " ").sorted() == ["1", "2"], "session ids from the daemon: \(lines[3])")
        #expect(lines[4].split(separator: " ").sorted() == ["1", "2"])
    }

    @Test("export streams to a file or standard output, text and binary; a broken stream leaves no file")
    func export() throws {
        let dir = try Paths.tempDir("exp")
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = String(repeating: "<trkpt lat=\"46.52\" lon=\"6.63\"><name>Genève → Zürich 🏃</name></trkpt>\n", count: 40_000)
        var generator = SystemRandomNumberGenerator()
        let binary = Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let fake = try ScriptedDaemon(path: dir.appendingPathComponent("fake.sock").path) { request in
            switch request.command {
            case .export(7, "gpx"):
                let stream = ExportStream(file: ExportFile(session: 7, format: "gpx", mediaType: "application/gpx+xml",
                                                           data: Data(text.utf8)), id: request.id)
                return [stream.headerLine] + (0..<stream.chunkCount).map(stream.chunkLine)
            case .export(7, "fit"):
                let stream = ExportStream(file: ExportFile(session: 7, format: "fit", mediaType: "application/vnd.ant.fit",
                                                           data: binary), id: request.id)
                return [stream.headerLine] + (0..<stream.chunkCount).map(stream.chunkLine)
            case .export(8, _):
                let stream = ExportStream(file: ExportFile(session: 8, format: "gpx", mediaType: "application/gpx+xml",
                                                           data: Data(text.utf8)), id: request.id)
                return [stream.headerLine] + (0..<2).map(stream.chunkLine) + ["<close>"]
            default:
                return [ReplyEncoder.line(ErrorReply(RequestError(.notFound, "no session", id: request.id)))]
            }
        }
        let sock = fake.path
        let gpx = dir.appendingPathComponent("out.gpx").path
        let r = try run(Paths.cli, ["--socket", sock, "export", "7", "--format", "gpx", "-o", gpx])
        #expect(r.status == 0, "\(r.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: gpx)) == Data(text.utf8))
        #expect(r.err.contains("wrote \(text.utf8.count) bytes"))
        let stdout = try run(Paths.cli, ["--socket", sock, "export", "7"])
        #expect(stdout.status == 0 && stdout.out == text)
        let fit = dir.appendingPathComponent("out.fit").path
        #expect(try run(Paths.cli, ["--socket", sock, "export", "7", "-f", "fit", "-o", fit]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: fit)) == binary)
        let json = try run(Paths.cli, ["--socket", sock, "export", "7", "--json"])
        let lines = json.out.split(separator: "\n")
        let header = try ReplyEncoder.decode(ExportReply.self, from: String(try #require(lines.first)))
        #expect(header.chunks > 10 && lines.count == header.chunks + 1)

        let broken = dir.appendingPathComponent("broken.gpx").path
        let b = try run(Paths.cli, ["--socket", sock, "export", "8", "-o", broken])
        #expect(b.status == 69, "\(b.err)")
        #expect(b.err.contains("stopped after"))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("broken") }
        #expect(left.isEmpty, "\(left)")
        let missing = try run(Paths.cli, ["--socket", sock, "export", "9", "-o", broken])
        #expect(missing.status == 1 && !FileManager.default.fileExists(atPath: broken))
    }

    @Test("badges: the table, tiers and the next badge; --json")
    func badges() throws {
        let dir = try Paths.tempDir("badge")
        defer { try? FileManager.default.removeItem(at: dir) }
        let board = BadgeBoard(sessions: [BadgeSessionSummary(id: 1, distance: 1_200, moving: 600, startTime: 1e9),
                                          BadgeSessionSummary(id: 2, distance: 1_300, moving: 500, startTime: 1.1e9)])
        let fake = try ScriptedDaemon(path: dir.appendingPathComponent("fake.sock").path) { request in
            switch request.command {
            case .badges: return [ReplyEncoder.line(BadgesReply(activity: .run, board: board, live: (session: 3, distance: 2_000), id: request.id))]
            case .config: return [ReplyEncoder.line(ConfigReply(config: .object(["units": .string("metric")]), id: request.id))]
            default: return [ReplyEncoder.line(ErrorReply(RequestError(.unknownCommand, "no", id: request.id)))]
            }
        }
        let r = try run(Paths.cli, ["--socket", fake.path, "badges"])
        #expect(r.status == 0, "\(r.err)")
        let moon = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("Moon") })
        #expect(moon.contains("gold") && moon.contains("#1"))
        #expect(r.out.contains("Next: Mercury (3.00 km), 1.00 km to go in session #3"))
        let json = try run(Paths.cli, ["--socket", fake.path, "badges", "--json"])
        #expect(try ReplyEncoder.decode(BadgesReply.self, from: json.out).badges.count == board.statuses.count)
    }
}

/// A stand-in daemon that answers each request with scripted lines (the
/// line `<close>` closes the connection), for replies the real daemon can
/// only give with parts other modules provide.
final class ScriptedDaemon: @unchecked Sendable {
    let path: String
    private let fd: Int32

    init(path: String, answer: @escaping @Sendable (Request) -> [String]) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else { throw HarnessError("cannot listen on \(path)") }
        let listener = fd
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                Thread { Self.serve(client, answer) }.start()
            }
        }.start()
    }

    private static func serve(_ client: Int32, _ answer: (Request) -> [String]) {
        defer { close(client) }
        guard sendAll(client, Array((ReplyEncoder.line(VersionReply()) + "\n").utf8)) else { return }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            pending += chunk[..<n]
            while let nl = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                guard let request = try? RequestParser.parse(line) else { continue }
                for reply in answer(request) {
                    if reply == "<close>" { return }
                    guard sendAll(client, Array((reply + "\n").utf8)) else { return }
                }
            }
        }
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        unlink(path)
    }
}
