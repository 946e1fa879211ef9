import Foundation
import MoonRunnerProtocol

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

/// A child process with captured output, killed (with its process group) on deinit.
final class Child: @unchecked Sendable {
    let process = Process()
    let output: URL
    let ownGroup: Bool

    /// Foundation starts every child in its own process group; with `ownGroup`
    /// signals go to the whole group, so that gpsfake and its gpsd die together.
    init(_ executable: String, _ args: [String], log: URL, ownGroup: Bool = false, env: [String: String] = [:]) throws {
        output = log
        self.ownGroup = ownGroup
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    func signal(_ sig: Int32) {
        if ownGroup {
            // The group may outlive its leader (gpsd after gpsfake).
            kill(-pid, sig)
        } else if process.isRunning {
            kill(pid, sig)
        }
    }

    /// Waits up to `timeout` seconds for the process to exit; returns its status or nil.
    func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        signal(SIGKILL)
        _ = wait(timeout: 2)
    }
}

/// Runs a command to completion and returns (status, stdout, stderr).
@discardableResult
func run(_ executable: String, _ args: [String], timeout: Double = 30, env: [String: String] = [:]) throws
    -> (status: Int32, out: String, err: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = args
    var environment = ProcessInfo.processInfo.environment
    for (k, v) in env { environment[k] = v }
    p.environment = environment
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    // Read while it runs so that a full pipe never blocks it.
    let outData = LockedData(), errData = LockedData()
    let group = DispatchGroup()
    for (pipe, sink) in [(out, outData), (err, errData)] {
        group.enter()
        DispatchQueue.global().async {
            sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
    }
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning && Date() < deadline { usleep(10_000) }
    if p.isRunning {
        p.terminate()
        throw HarnessError("\(executable) \(args.joined(separator: " ")) timed out after \(timeout) s")
    }
    group.wait()
    return (p.terminationStatus, String(decoding: outData.get(), as: UTF8.self), String(decoding: errData.get(), as: UTF8.self))
}

final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
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
