import Foundation
import MoonRunnerProtocol
import Testing

// Helpers shared by the Socket*Tests suites: a daemon started with a wrapper
// (setpriv) and its own socket path, process figures from /proc, and raw
// connections that report errno.

/// A moonrunnerd of a `Rig`, started with any socket path, config and wrapper command.
struct SocketDaemon {
    let rig: Rig
    let socket: String
    let child: Child

    /// Starts the daemon replaying the demo IMU at `speed`; `wrapper` goes in
    /// front of it (e.g. `setpriv --regid=nogroup --clear-groups`).
    init(_ rig: Rig, socket: String? = nil, speed: Double = 10, config: String? = nil, wrapper: [String] = [],
         imu: String? = nil, waitForSocket: Bool = true, tag: String = "d") throws {
        self.rig = rig
        let path = socket ?? rig.socket
        self.socket = path
        var args = ["--state-dir", rig.state.path, "--socket", path, "--gpsd", "127.0.0.1:\(rig.port)",
                    "--imu", imu ?? "replay:\(Paths.demo.appendingPathComponent("walk-imu.csv.gz").path),speed=\(speed)",
                    "--log-level", "debug"]
        if let config {
            let file = rig.dir.appendingPathComponent("config-\(tag).yaml")
            try config.write(to: file, atomically: true, encoding: .utf8)
            args = ["--config", file.path] + args
        }
        let executable = wrapper.first ?? Paths.daemon
        let all = wrapper.isEmpty ? args : Array(wrapper.dropFirst()) + [Paths.daemon] + args
        child = try Child(executable, all, log: rig.dir.appendingPathComponent("daemon-\(tag).log"))
        if waitForSocket {
            let up = eventually(timeout: 15) { (try? RawClient(path: path)) != nil }
            guard up else { throw HarnessError("moonrunnerd did not open \(path): \(child.log.suffix(2000))") }
        }
    }

    var pid: Int32 { child.pid }

    /// Connections the daemon has taken and not yet let go, and all it has taken, from its debug log
    /// ("client N connected (...)", "client N disconnected", one each per connection).
    var clients: (open: Int, all: Int) {
        let lines = child.log.split(separator: "\n").filter { $0.contains("client ") }
        let all = lines.filter { $0.contains(" connected (") && !$0.contains(" refused") }.count
        return (all - lines.filter { $0.hasSuffix(" disconnected") }.count, all)
    }

    /// Runs the CLI against this daemon (optionally as another user through `setpriv`).
    @discardableResult
    func cli(_ args: [String], as user: [String] = [], timeout: Double = 30) throws -> (status: Int32, out: String, err: String) {
        let cliArgs = ["--socket", socket] + args
        if user.isEmpty { return try run(Paths.cli, cliArgs, timeout: timeout) }
        return try run("/usr/bin/setpriv", user + [Paths.cli] + cliArgs, timeout: timeout)
    }

    func status() throws -> StatusReply {
        let r = try cli(["status", "--json"])
        guard r.status == 0 else { throw HarnessError("status failed (\(r.status)): \(r.err)") }
        return try ReplyEncoder.decode(StatusReply.self, from: r.out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func waitFor(timeout: Double, _ what: String, _ condition: (StatusReply) -> Bool) throws -> StatusReply {
        var last: StatusReply?
        let ok = eventually(timeout: timeout) {
            guard let s = try? status() else { return false }
            last = s
            return condition(s)
        }
        guard ok, let s = last else {
            throw HarnessError("timed out waiting for \(what); last: \(String(describing: last)); log: \(child.log.suffix(1500))")
        }
        return s
    }
}

/// The user `nobody` with group `nogroup` and no other groups.
let asNobody = ["--reuid=nobody", "--regid=nogroup", "--clear-groups"]

/// Figures of a running process from /proc.
enum ProcessFigures {
    /// Resident set size in kB (VmRSS), nil when the process is gone.
    static func rssKB(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// utime + stime in clock ticks.
    static func cpuTicks(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After "pid (comm)": state is field 3, utime 14, stime 15.
        guard fields.count > 13, let u = Int(fields[11]), let s = Int(fields[12]) else { return nil }
        return u + s
    }
}

/// Connects to a Unix socket; returns the descriptor or the errno.
func connectUnix(_ path: String) -> Result<Int32, POSIXError> {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
    let ok = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard ok == 0 else {
        let e = errno
        close(fd)
        return .failure(POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO))
    }
    return .success(fd)
}

/// Reads until EOF or `timeout`; returns the lines and whether EOF was seen.
func drain(_ fd: Int32, timeout: Double) -> (lines: [String], closed: Bool) {
    var tv = timeval(tv_sec: 0, tv_usec: 200_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var data: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(timeout)
    var closed = false
    while Date() < deadline {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n == 0 { closed = true; break }
        if n < 0 {
            if errno == EAGAIN || errno == EINTR { continue }
            closed = true
            break
        }
        data.append(contentsOf: chunk[..<n])
    }
    let lines = data.split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    return (lines.filter { !$0.isEmpty }, closed)
}

/// The bytes waiting unread on `fd`, left there (MSG_PEEK): what the daemon has sent so far.
func peek(_ fd: Int32) -> [UInt8] {
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_PEEK | MSG_DONTWAIT)) }
    return n > 0 ? Array(chunk[..<n]) : []
}

/// Writes all bytes (MSG_NOSIGNAL); false when the peer is gone.
@discardableResult
func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n <= 0 {
            if n < 0 && errno == EINTR { continue }
            return false
        }
        sent += n
    }
    return true
}
