import Foundation
import MoonRunnerProtocol

/// A real gpsd (through gpsfake) on a free loopback port, a real moonrunnerd
/// with the emulated IMU, and the real CLI, in a private temporary folder.
final class Rig: @unchecked Sendable {
    let dir: URL
    let port: Int
    let socket: String
    let state: URL
    var gpsfake: Child?
    var daemon: Child?
    private var gpsStarts = 0
    private var daemonStarts = 0

    init(_ tag: String) throws {
        dir = try Paths.tempDir(tag)
        port = try freePort()
        socket = dir.appendingPathComponent("mr.sock").path
        state = dir.appendingPathComponent("state")
    }

    deinit {
        daemon = nil
        gpsfake = nil
        try? FileManager.default.removeItem(at: dir)
    }

    /// Replays an NMEA log through gpsfake at `epochsPerSecond` (4 sentences an epoch in the demo).
    /// With `pipe`, gpsfake is itself a client (its JSON goes to its log) and
    /// waits 1.4 s before feeding, so a daemon started right after it sees
    /// the whole log.
    var gpsfakeLog: URL { dir.appendingPathComponent("gpsfake-\(gpsStarts).log") }

    func startGPS(nmea: URL = Paths.demo.appendingPathComponent("walk.nmea"), epochsPerSecond: Double,
                  sentencesPerEpoch: Double = 4, loop: Bool = false, pipe: Bool = false) throws {
        gpsStarts += 1
        let cycle = 1 / (epochsPerSecond * sentencesPerEpoch)
        // gpsfake names gpsd's control socket $TMPDIR/gpsfake-<its pid>.sock and
        // takes the file's existence as "gpsd is ready". A file left in /tmp by an
        // earlier gpsfake with the same pid (a killed one never removes it) made it
        // add no device and connect too early ("socket error", or a pass that never
        // ends). A private TMPDIR, removed with the rig, has no such leftovers.
        gpsfake = try Child("/usr/bin/gpsfake", (loop ? [] : ["-1"]) + (pipe ? ["-p"] : []) + ["-q", "-P", String(port), "-c", String(format: "%.5f", cycle), nmea.path],
                            log: gpsfakeLog, ownGroup: true, env: ["TMPDIR": dir.path])
        let up = eventually(timeout: 10) { Self.canConnect(port: port) }
        guard up else { throw HarnessError("gpsfake did not listen on \(port): \(gpsfake?.log ?? "")") }
    }

    /// Kills gpsfake and the gpsd it started.
    func stopGPS() {
        gpsfake?.signal(SIGKILL)
        _ = gpsfake?.wait(timeout: 5)
        gpsfake = nil
        _ = eventually(timeout: 5) { !Self.canConnect(port: port) }
    }

    /// Starts moonrunnerd replaying the demo IMU trace at `speed` (looping it with `loop`).
    func startDaemon(speed: Double, imu: String? = nil, config: String? = nil, extra: [String] = [],
                     loop: Bool = false, env: [String: String] = [:]) throws {
        daemonStarts += 1
        var args = ["--state-dir", state.path, "--socket", socket, "--gpsd", "127.0.0.1:\(port)",
                    "--imu", imu ?? "replay:\(Paths.demo.appendingPathComponent("walk-imu.csv.gz").path),speed=\(speed)\(loop ? ",loop" : "")",
                    "--log-level", "info"]
        if let config {
            let file = dir.appendingPathComponent("config-\(daemonStarts).yaml")
            try config.write(to: file, atomically: true, encoding: .utf8)
            args = ["--config", file.path] + args
        }
        daemon = try Child(Paths.daemon, args + extra, log: dir.appendingPathComponent("daemon-\(daemonStarts).log"), env: env)
        let up = eventually(timeout: 15) { (try? RawClient(path: socket)) != nil }
        guard up else { throw HarnessError("moonrunnerd did not open its socket: \(daemon?.log ?? "")") }
    }

    /// Runs the CLI against this rig's daemon.
    @discardableResult
    func cli(_ args: String...) throws -> (status: Int32, out: String, err: String) {
        try run(Paths.cli, ["--socket", socket] + args)
    }

    func status() throws -> StatusReply {
        let r = try cli("status", "--json")
        guard r.status == 0 else { throw HarnessError("status failed: \(r.err)") }
        return try ReplyEncoder.decode(StatusReply.self, from: r.out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func session(_ id: Int64) throws -> SessionReply {
        let r = try cli("show", String(id), "--json")
        guard r.status == 0 else { throw HarnessError("show failed: \(r.err)") }
        return try ReplyEncoder.decode(SessionReply.self, from: r.out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Waits until `condition` holds for the daemon's STATUS.
    func waitFor(timeout: Double, _ what: String, _ condition: (StatusReply) -> Bool) throws -> StatusReply {
        var last: StatusReply?
        let ok = eventually(timeout: timeout) {
            guard let s = try? status() else { return false }
            last = s
            return condition(s)
        }
        guard ok, let s = last else {
            throw HarnessError("timed out waiting for \(what); last status: \(String(describing: last)); log: \(daemon?.log.suffix(2000) ?? "")")
        }
        return s
    }

    static func canConnect(port: Int) -> Bool {
        let fd = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
