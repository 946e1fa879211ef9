import Foundation
import MoonRunnerProtocol
import MoonRunnerStore
import Testing

/// A datagram socket standing in for systemd's NOTIFY_SOCKET.
final class NotifyListener {
    let path: String
    let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else { throw HarnessError("bind \(path) failed") }
        var tv = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Messages received until `timeout` passes or `until` matches one.
    func collect(timeout: Double, until: (String) -> Bool) -> [String] {
        var out: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                let m = String(decoding: buf[..<n], as: UTF8.self)
                out.append(m)
                if until(m) { break }
            }
        }
        return out
    }
}

@Suite("systemd integration", .serialized)
struct SystemdEndToEndTests {
    @Test("sd_notify: READY=1 with STATUS=, WATCHDOG=1 when asked, STOPPING=1 on SIGTERM; the session is committed")
    func notifyAndGracefulStop() async throws {
        let rig = try Rig("notify")
        let notify = try NotifyListener(path: rig.dir.appendingPathComponent("notify").path)
        try rig.startGPS(epochsPerSecond: 10)
        let args = ["--state-dir", rig.state.path, "--socket", rig.socket, "--gpsd", "127.0.0.1:\(rig.port)",
                    "--imu", "replay:\(Paths.demo.appendingPathComponent("walk-imu.csv.gz").path),speed=10"]
        let daemon = try Child(Paths.daemon, args, log: rig.dir.appendingPathComponent("d.log"),
                               env: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "2000000"])
        let ready = notify.collect(timeout: 10) { $0.contains("READY=1") }
        #expect(ready.contains { $0.contains("READY=1") && $0.contains("STATUS=") }, "got \(ready)")
        let pings = notify.collect(timeout: 3) { $0.contains("WATCHDOG=1") }
        #expect(pings.contains { $0.contains("WATCHDOG=1") }, "got \(pings)")
        #expect(try rig.cli("start").status == 0)
        let live = try rig.waitFor(timeout: 20, "steps") { $0.steps > 30 }
        let id = try #require(live.session)

        daemon.signal(SIGTERM)
        let stopping = notify.collect(timeout: 10) { $0.contains("STOPPING=1") }
        #expect(stopping.contains { $0.contains("STOPPING=1") })
        #expect(daemon.wait(timeout: 10) == 0, "exit status; log: \(daemon.log.suffix(1000))")
        let store = try SessionStore(directory: rig.state.path)
        let stored = try #require(try await store.session(id: id))
        #expect(stored.snapshot.stats.steps >= live.steps)
        #expect(stored.state == .recording || stored.state == .autoPaused, "left open for the next start to resume")
        #expect(daemon.log.contains("committed"))
    }

    @Test("socket activation: the daemon serves on the socket systemd passes (LISTEN_FDS)")
    func socketActivation() throws {
        let rig = try Rig("activate")
        try rig.startGPS(epochsPerSecond: 10)
        let activated = rig.dir.appendingPathComponent("activated.sock").path
        // Tests/Tools/socket_activate.py does what systemd does for a .socket unit:
        // listening socket on fd 3, LISTEN_FDS=1, LISTEN_PID = the daemon's pid.
        let child = try Child("/usr/bin/python3",
                              [Paths.root.appendingPathComponent("Tests/Tools/socket_activate.py").path, activated, Paths.daemon, "--state-dir", rig.state.path,
                               "--socket", rig.dir.appendingPathComponent("unused.sock").path,
                               "--gpsd", "127.0.0.1:\(rig.port)",
                               "--imu", "replay:\(Paths.demo.appendingPathComponent("walk-imu.csv.gz").path),speed=10"],
                              log: rig.dir.appendingPathComponent("act.log"))
        defer { child.signal(SIGTERM); _ = child.wait(timeout: 5) }
        let ok = eventually(timeout: 10) { FileManager.default.fileExists(atPath: activated) }
        #expect(ok)
        let r: (status: Int32, out: String, err: String)
        do {
            r = try run(Paths.cli, ["--socket", activated, "status", "--json"], timeout: 20)
        } catch {
            Issue.record("\(error); activator log: \(child.log.suffix(1500))")
            return
        }
        #expect(r.status == 0, "\(r.err) \(child.log.suffix(800))")
        #expect(ReplyEncoder.replyClass(of: r.out.trimmingCharacters(in: .whitespacesAndNewlines)) == "STATUS")
        #expect(!FileManager.default.fileExists(atPath: rig.dir.appendingPathComponent("unused.sock").path))
        #expect(child.log.contains("socket passed by systemd"))
    }

    @Test("the unit verifies, its sandbox scores an exposure of 1.5 or less, and it still reaches the system bus (BlueZ)")
    func unitSecurity() throws {
        let unit = Paths.root.appendingPathComponent("systemd/moonrunnerd.service")
        let value = try exposure(of: unit)
        #expect(value <= 1.5, "exposure \(value)")
        // The strap's client talks to org.bluez over /run/dbus/system_bus_socket:
        // a Unix socket, BlueZ's policy for group bluetooth, the path not hidden.
        let settings = try String(contentsOf: unit, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        func values(_ key: String) -> [Substring] {
            settings.filter { $0.hasPrefix(key + "=") }.flatMap { $0.dropFirst(key.count + 1).split(separator: " ") }
        }
        #expect(values("RestrictAddressFamilies").contains("AF_UNIX"))
        #expect(values("SupplementaryGroups").contains("bluetooth"))
        #expect(values("PrivateNetwork").isEmpty && values("InaccessiblePaths").allSatisfy { !"/run/dbus".hasPrefix($0) })

        // verify needs the binary at ExecStart: point a copy of the unit at the built one.
        let dir = try Paths.tempDir("unit")
        defer { try? FileManager.default.removeItem(at: dir) }
        var text = try String(contentsOf: unit, encoding: .utf8)
        text = text.replacingOccurrences(of: "/usr/sbin/moonrunnerd", with: Paths.daemon)
        try text.write(to: dir.appendingPathComponent("moonrunnerd.service"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: Paths.root.appendingPathComponent("systemd/moonrunnerd.socket"),
                                         to: dir.appendingPathComponent("moonrunnerd.socket"))
        let verify = try run("/usr/bin/systemd-analyze",
                             ["verify", dir.appendingPathComponent("moonrunnerd.service").path,
                              dir.appendingPathComponent("moonrunnerd.socket").path], timeout: 60)
        let complaints = (verify.out + verify.err).split(separator: "\n").filter {
            // The build machine may lack a running systemd; the man pages come with the package
            // (deb_check.py verifies the installed units with them).
            $0.contains("moonrunnerd") && !$0.contains("Failed to") && !$0.contains("Command 'man ")
        }
        #expect(verify.status == 0 || complaints.isEmpty, "\(verify.out) \(verify.err)")
        #expect(complaints.isEmpty, "\(complaints)")
    }
}
