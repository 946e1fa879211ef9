import Foundation
import MoonRunnerWeb
import Testing

/// The limits a real socket meets: these run the server on a free loopback
/// port and talk to it byte by byte, so they wait on a real clock (each wait
/// bounded, a few seconds in all).
@Suite("Web: limits of the HTTP server on a real socket", .serialized)
struct ServerLimitsTests {
    static func settings() -> WebSettings {
        var s = WebSettings()
        s.idleTimeout = 1
        s.bodyTimeout = 2
        s.maxHeaderBytes = 8 * 1024
        return s
    }

    @Test("a request head larger than web.max_header_kb is refused (400) and the connection closed; the server goes on")
    func oversizedHeader() async throws {
        let web = try TestWeb(settings: Self.settings())
        try await web.live { port in
            let c = try RawHTTP(port: port)
            // Read while sending. The server answers and closes before it has read the whole head, so its
            // close is a reset, which may reach this client before it has read the answer (seen on a loaded
            // machine): the answer, when read, is a 400; either way nothing else is served on it.
            let reply = try await RawHTTP.offPool {
                try c.exchange("GET /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(String(repeating: "a", count: 20_000))\r\n\r\n",
                               timeout: 15)
            }
            #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 400"), "\(reply.prefix(80))")
            // A loaded machine may take a while to close it.
            let closed = try await RawHTTP.offPool { c.peerClosed(waiting: 5000) }
            #expect(closed || reply.hasPrefix("HTTP/1.1 400"), "the connection is closed")
            // The same head within the limit is served.
            let ok = try await RawHTTP.offPool {
                try RawHTTP(port: port).exchange("GET /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + "X-Padding: \(String(repeating: "a", count: 2_000))\r\n\r\n", timeout: 15)
            }
            #expect(ok.hasPrefix("HTTP/1.1 200"), "\(ok.prefix(80))")
        }
    }

    @Test("a client that stops sending in the middle of its request is disconnected after web.idle_timeout_s")
    func slowClient() async throws {
        let web = try TestWeb(settings: Self.settings())
        try await web.live { port in
            let c = try RawHTTP(port: port)
            let started = Date()
            try c.send("GET /pair HTTP/1.1\r\nHo")
            let reply = try await RawHTTP.offPool { c.readAll(timeout: 10) }
            let held = Date().timeIntervalSince(started)
            #expect(reply.isEmpty, "nothing was answered to half a request")
            // Bounds wide enough for a loaded machine; without the timeout it would stay open for ever.
            #expect(held >= 0.9 && held < 8, "closed after \(held) s; the idle timeout is 1 s")
        }
    }

    @Test("an upload whose Content-Length is over the limit is answered 413 before a byte of it is sent")
    func refusedBeforeRead() async throws {
        let daemon = FakeDaemon()
        daemon.state.withLock { $0.maxUploadKB = 64 }
        let web = try TestWeb(daemon: daemon, settings: Self.settings())
        let token = try await Self.pairedToken(web.devices)
        try await web.live { port in
            let c = try RawHTTP(port: port)
            try c.send("POST /courses HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                + "Cookie: mr_device=\(token)\r\nContent-Type: multipart/form-data; boundary=XyZ\r\n"
                + "Content-Length: 52428800\r\n\r\n")
            let reply = try await RawHTTP.offPool { c.readAll(timeout: 5) }
            #expect(reply.hasPrefix("HTTP/1.1 413"), "\(reply.prefix(80))")
        }
        #expect(!daemon.requests.contains { if case .courseAdd = $0 { true } else { false } })
    }

    @Test("an upload that trickles in is cut off at web.body_timeout_s")
    func trickle() async throws {
        let web = try TestWeb(settings: Self.settings())
        let token = try await Self.pairedToken(web.devices)
        try await web.live { port in
            let c = try RawHTTP(port: port)
            try c.send("POST /courses HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                + "Cookie: mr_device=\(token)\r\nContent-Type: multipart/form-data; boundary=XyZ\r\n"
                + "Content-Length: 5000\r\n\r\n--XyZ\r\n")
            let started = Date()
            var closed = false
            // One byte every 0.4 s keeps the idle timeout (1 s) from firing; the body deadline (2 s) must.
            for _ in 0..<30 {
                try? await Task.sleep(for: .milliseconds(400))
                if (try? c.send("a")) == nil || c.peerClosed() {
                    closed = true
                    break
                }
            }
            let held = Date().timeIntervalSince(started)
            #expect(closed, "the trickling upload was cut off")
            // Without the deadline the trickle would hold it for all 12 s (the idle timeout never fires).
            #expect(held < 8, "after \(held) s; the body deadline is 2 s")
        }
    }

    static func pairedToken(_ devices: DeviceStore) async throws -> String {
        let (code, _) = await devices.issueCode()
        guard case let .success((_, token)) = await devices.pair(code: code, name: "t", address: "127.0.0.1") else {
            throw TestFailure("pairing failed")
        }
        return token
    }
}

/// A plain TCP client for byte-level HTTP.
final class RawHTTP: @unchecked Sendable {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw TestFailure("cannot connect to 127.0.0.1:\(port)") }
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestFailure("send failed: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Runs `body` on a thread of its own. These calls block (poll, a semaphore):
    /// a test's task blocking a thread of the cooperative pool starves the server
    /// it talks to, whose handlers run there (two at once on a 2-core machine
    /// stalled it for seconds under the full suite).
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in
            Thread.detachNewThread { c.resume(with: Result { try body() }) }
        }
    }

    /// Sends `text` while a thread reads: everything the server answered before it closed.
    func exchange(_ text: String, timeout: Double) throws -> String {
        let done = DispatchSemaphore(value: 0)
        let box = ReplyBox()
        Thread.detachNewThread { [self] in
            box.text = readAll(timeout: timeout)
            done.signal()
        }
        try? send(text)  // the server may close before all of it is sent
        done.wait()
        return box.text
    }

    final class ReplyBox: @unchecked Sendable { var text = "" }

    /// Everything until the server closes, or `timeout` seconds.
    func readAll(timeout: Double) -> String {
        var out: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out += buffer[..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether the server closed the connection, waiting up to `ms` for it.
    func peerClosed(waiting ms: Int32 = 0) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, ms) > 0 else { return false }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n <= 0 || p.revents & Int16(POLLHUP | POLLERR) != 0
    }
}
