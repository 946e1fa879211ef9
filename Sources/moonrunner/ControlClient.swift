import Foundation
import MoonRunnerProtocol

/// A blocking client of the control socket: fine for a command-line tool,
/// which has nothing else to do while it waits.
final class ControlClient {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []

    struct Unavailable: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String {
            "moonrunnerd is not running or not reachable at \(path) (\(reason)); start it, or pass --socket / set MOONRUNNER_SOCKET"
        }
    }

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Unavailable(path: path, reason: String(cString: strerror(errno))) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            close(fd)
            throw Unavailable(path: path, reason: "path too long")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard ok == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Unavailable(path: path, reason: reason)
        }
        // The daemon greets with VERSION.
        _ = try readLine()
    }

    deinit { close(fd) }

    func send(_ request: Request) throws {
        let line = Array((request.line + "\n").utf8)
        var sent = 0
        while sent < line.count {
            let n = line[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Unavailable(path: path, reason: "write failed: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// The next line from the daemon; nil when it closed the connection.
    func readLine() throws -> String? {
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return nil }
            guard n > 0 else {
                if errno == EINTR { continue }
                throw Unavailable(path: path, reason: "read failed: \(String(cString: strerror(errno)))")
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Sends a request and returns the first reply that is not a watcher's STATUS/EVENT.
    func request(_ request: Request) throws -> String {
        try send(request)
        while let line = try readLine() {
            let cls = ReplyEncoder.replyClass(of: line)
            if cls == "EVENT" { continue }
            return line
        }
        throw Unavailable(path: path, reason: "the daemon closed the connection")
    }
}
