import Foundation
import MoonRunnerProtocol
import Testing

@Suite("Control socket, end to end", .serialized)
struct ProtocolEndToEndTests {
    @Test("malformed requests get ERROR, the connection stays usable and the session goes on")
    func malformedRequests() async throws {
        let rig = try Rig("proto")
        try rig.startGPS(epochsPerSecond: 10)
        try rig.startDaemon(speed: 10)
        #expect(try rig.cli("start").status == 0)
        let client = try RawClient(path: rig.socket)
        let version = try client.readLine()
        #expect(ReplyEncoder.replyClass(of: version) == "VERSION")

        let bad: [(String, RequestError.Code)] = [
            ("hello\n", .syntax),
            ("?FOO;\n", .unknownCommand),
            ("?START={not json};\n", .badJSON),
            ("?SESSION={\"id\":\"x\"};\n", .badParameter),
            ("?SESSION;\n", .badParameter),
            ("?START={\"activity\":\"swim\"};\n", .badParameter),
            ("?START;\n", .invalidState),
            ("?SESSION={\"id\":999999};\n", .notFound),
            ("?EXPORT={\"id\":1};\n", .badParameter),
            (String(repeating: "x", count: 10_000) + "\n", .tooLong),
        ]
        for (request, code) in bad {
            client.send(request)
            let line = try client.read(class: "ERROR")
            let error = try ReplyEncoder.decode(ErrorReply.self, from: line)
            #expect(error.code == code, "\(request.prefix(40)) → \(line)")
            #expect(!error.message.isEmpty)
        }
        // Binary garbage and a half line, then a real request on the same connection.
        client.send([0, 1, 2, 255, 254, 10])
        _ = try client.read(class: "ERROR")
        client.send("?STAT")
        client.send("US;\n")
        let status = try ReplyEncoder.decode(StatusReply.self, from: try client.read(class: "STATUS"))
        #expect(status.state == .recording || status.state == .autoPaused)

        // An id is echoed.
        client.send("?STATUS={\"id\":\"abc\"};\n")
        let echoed = try ReplyEncoder.decode(StatusReply.self, from: try client.read(class: "STATUS"))
        #expect(echoed.id == .string("abc"))

        // The session kept recording throughout.
        let later = try rig.waitFor(timeout: 20, "more steps") { $0.steps > status.steps }
        #expect(later.session == status.session)
        #expect(rig.daemon?.isRunning == true)
    }

    @Test("a watcher gets STATUS every second and EVENTs")
    func watch() async throws {
        let rig = try Rig("watch")
        try rig.startGPS(epochsPerSecond: 10)
        try rig.startDaemon(speed: 10)
        let client = try RawClient(path: rig.socket)
        _ = try client.readLine()
        client.send("?WATCH={\"enable\":true};\n")
        _ = try client.read(class: "STATUS")
        #expect(try rig.cli("start").status == 0)
        let event = try ReplyEncoder.decode(EventReply.self, from: try client.read(class: "EVENT"))
        #expect(event.event == "start")
        let t0 = Date()
        _ = try client.read(class: "STATUS")
        _ = try client.read(class: "STATUS")
        let elapsed = Date().timeIntervalSince(t0)
        #expect(elapsed > 0.5 && elapsed < 4)
        // The CLI's watch prints lines when piped.
        let piped = try rig.cli("watch", "--count", "2")
        #expect(piped.status == 0)
        #expect(piped.out.split(separator: "\n").filter { $0.hasPrefix("recording") || $0.hasPrefix("autoPaused") }.count == 2)
    }

    @Test("the CLI says clearly when the daemon is not running")
    func daemonNotRunning() throws {
        let r = try run(Paths.cli, ["--socket", "/tmp/mr-nonexistent.sock", "status"])
        #expect(r.status == 69)
        #expect(r.err.contains("not running"))
    }
}

@Suite("Daemon configuration, end to end")
struct ConfigEndToEndTests {
    @Test("an invalid value stops the daemon with exit 78 and names the key", arguments: [
        ("gpsd:\n  port: 70000\n", "gpsd.port"),
        ("imu:\n  rate_hz: fast\n", "imu.rate_hz"),
        ("imu:\n  accel_range_g: 3\n", "imu.accel_range_g"),
        ("socket:\n  mode: \"0666\"\n", "socket.mode"),
        ("units: furlongs\n", "units"),
        ("auto_pause:\n  enabled: maybe\n", "auto_pause.enabled"),
        ("store:\n  comit_interval_s: 2\n", "store.comit_interval_s"),
        ("gpsd: [1, 2\n", "(file)"),
    ])
    func badConfig(yaml: String, key: String) throws {
        let dir = try Paths.tempDir("cfg")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        let r = try run(Paths.daemon, ["--config", file.path, "--state-dir", dir.path,
                                       "--socket", dir.appendingPathComponent("s").path], timeout: 10)
        #expect(r.status == 78)
        #expect(r.err.contains(key), "stderr: \(r.err)")
    }

    @Test("bad flags too", arguments: [
        (["--gpsd", "nohost"], "--gpsd"),
        (["--imu", "usb:/dev/x"], "--imu"),
        (["--imu", "replay:/nonexistent.csv"], "imu.source"),
    ])
    func badFlags(args: [String], key: String) throws {
        let dir = try Paths.tempDir("flag")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try run(Paths.daemon, ["--state-dir", dir.path, "--socket", dir.appendingPathComponent("s").path] + args,
                        timeout: 10)
        #expect(r.status == 78)
        #expect(r.err.contains(key), "stderr: \(r.err)")
    }
}
