import FoundationEssentials
import Glibc
import MoonRunnerProtocol

/// A blocking client of the control socket: fine for a command-line tool,
/// which has nothing else to do while it waits, and for the announcer's
/// reader thread.
public final class ControlClient {
    public let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// The daemon's greeting.
    public private(set) var version: VersionReply?

    /// The daemon cannot be reached, or stopped answering.
    public struct Unavailable: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String {
            if reason.contains("Permission denied") {
                return "cannot reach moonrunnerd at \(path) (\(reason)): your user may not enter the socket's directory; "
                    + "ask for membership of the daemon's group, or run as its user"
            }
            return "moonrunnerd is not running or not reachable at \(path) (\(reason)); start it, or pass --socket / set MOONRUNNER_SOCKET"
        }
    }

    /// Connects and reads the VERSION greeting. `timeout` (seconds, 0 for
    /// none) bounds every later wait for the daemon.
    public init(path: String, timeout: Double) throws {
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
        if timeout > 0 {
            var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
        guard let greeting = try readLine() else { throw Unavailable(path: path, reason: "closed before greeting") }
        switch ReplyEncoder.replyClass(of: greeting) {
        case "VERSION":
            version = try? ReplyEncoder.decode(VersionReply.self, from: greeting)
        case "ERROR":
            // e.g. too_many_clients: the daemon says so and closes.
            pendingGreetingError = greeting
        default:
            throw Unavailable(path: path, reason: "unexpected greeting: \(greeting.prefix(80))")
        }
    }

    /// An ERROR the daemon sent instead of VERSION; returned as the first reply.
    private var pendingGreetingError: String?

    deinit { close(fd) }

    public func send(_ request: Request) throws {
        try send(line: request.line)
    }

    public func send(line: String) throws {
        // The daemon refused us at the door and closed; its ERROR is the answer.
        guard pendingGreetingError == nil else { return }
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a daemon that closed the connection is an error here, not SIGPIPE.
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else {
                if n < 0 && errno == EINTR { continue }
                throw Unavailable(path: path, reason: "write failed: \(String(cString: strerror(errno)))")
            }
            sent += n
        }
    }

    /// The next line from the daemon; nil when it closed the connection.
    public func readLine() throws -> String? {
        if let e = pendingGreetingError {
            pendingGreetingError = nil
            return e
        }
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return nil }
            guard n > 0 else {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw Unavailable(path: path, reason: "no reply within the timeout; the daemon may be overloaded (--timeout)")
                }
                throw Unavailable(path: path, reason: "read failed: \(String(cString: strerror(errno)))")
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Sends a request and returns its reply (skipping EVENTs, which only watchers get).
    public func request(_ request: Request) throws -> String {
        try send(request)
        return try nextReply()
    }

    /// The next line that is not an EVENT.
    public func nextReply() throws -> String {
        while let line = try readLine() {
            if ReplyEncoder.replyClass(of: line) == "EVENT" { continue }
            return line
        }
        throw Unavailable(path: path, reason: "the daemon closed the connection")
    }
}
