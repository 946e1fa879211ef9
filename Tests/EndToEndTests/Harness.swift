import Foundation
import MoonRunnerProtocol
@_exported import MoonRunnerTestSupport

/// Where things are, for tests that run the real binaries.
enum Paths {
    /// The repository root, from this file's location.
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built binaries (MOONRUNNER_BIN, default .build/debug).
    static var bin: URL {
        if let b = ProcessInfo.processInfo.environment["MOONRUNNER_BIN"], !b.isEmpty {
            return URL(fileURLWithPath: b, relativeTo: root).standardizedFileURL
        }
        return root.appendingPathComponent(".build/debug")
    }

    static var daemon: String { bin.appendingPathComponent("moonrunnerd").path }
    static var cli: String { bin.appendingPathComponent("moonrunner").path }
    static var announcer: String { bin.appendingPathComponent("moonrunner-announce").path }
    static var demo: URL { root.appendingPathComponent("Tests/Fixtures/demo") }

    /// The shared labelled data (MOONRUNNER_DATA, default ../shared/data).
    static var data: URL {
        if let d = ProcessInfo.processInfo.environment["MOONRUNNER_DATA"], !d.isEmpty {
            return URL(fileURLWithPath: d, relativeTo: root).standardizedFileURL
        }
        return root.appendingPathComponent("../shared/data").standardizedFileURL
    }

    /// A fresh temporary directory, short enough for a Unix socket path.
    static func tempDir(_ tag: String) throws -> URL {
        let dir = URL(fileURLWithPath: "/tmp/mr-\(tag)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// `systemd-analyze security --offline=true`'s overall exposure of a unit file.
func exposure(of unit: URL) throws -> Double {
    let security = try run("/usr/bin/systemd-analyze", ["security", "--offline=true", unit.path], timeout: 60)
    let line = security.out.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
    guard let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap({ Double($0) }) else {
        throw HarnessError("no exposure score in: \(security.out.suffix(300)) \(security.err)")
    }
    return score
}

/// A free loopback TCP port.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket failed") }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = 0
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw HarnessError("bind failed") }
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
    }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// Polls `condition` every 50 ms until it holds or `timeout` passes.
func eventually(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if try condition() { return true }
        usleep(50_000)
    } while Date() < deadline
    return try condition()
}

/// A raw line client of the control socket, for protocol tests.
final class RawClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else {
            close(fd)
            throw HarnessError("connect \(path): \(String(cString: strerror(errno)))")
        }
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a daemon that went away is an error here, not a SIGPIPE.
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func readLine() throws -> String {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw HarnessError("connection closed or timed out") }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// The next line whose class is `cls`, skipping watcher traffic.
    func read(class cls: String) throws -> String {
        for _ in 0..<1000 {
            let line = try readLine()
            if ReplyEncoder.replyClass(of: line) == cls { return line }
        }
        throw HarnessError("no \(cls) reply")
    }
}
