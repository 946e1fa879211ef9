import Foundation
import MoonRunnerProtocol
import Testing

/// Each configurable limit of the control socket, against a real daemon.
@Suite("Control socket: limits", .serialized)
struct SocketLimitsTests {
    @Test("max_line_bytes: a longer line gets too_long, even sent in pieces; memory stays flat; the connection goes on")
    func lineLength() throws {
        let rig = try Rig("line")
        let d = try SocketDaemon(rig, config: "socket:\n  max_line_bytes: 300\n")
        let client = try RawClient(path: d.socket)
        _ = try client.readLine()
        // Exactly the limit is fine; one more byte is not.
        let head = "?STATUS={\"id\":\""
        let exact = head + String(repeating: "x", count: 300 - head.utf8.count - 3) + "\"};"
        #expect(exact.utf8.count == 300)
        client.send(exact + "\n")
        #expect(ReplyEncoder.replyClass(of: try client.readLine()) == "STATUS")
        client.send(exact + " \n")
        let long = try ReplyEncoder.decode(ErrorReply.self, from: try client.readLine())
        #expect(long.code == .tooLong)
        #expect(long.message.contains("300") && long.message.contains("socket.max_line_bytes"))

        // 8 MB without a newline, in 64 KiB pieces, then the newline: one ERROR, bounded memory.
        let before = try #require(ProcessFigures.rssKB(d.pid))
        let piece = [UInt8](repeating: UInt8(ascii: "A"), count: 65536)
        for _ in 0..<128 { client.send(piece) }
        client.send("\n?VERSION;\n")
        #expect(try ReplyEncoder.decode(ErrorReply.self, from: try client.readLine()).code == .tooLong)
        #expect(ReplyEncoder.replyClass(of: try client.readLine()) == "VERSION")
        let after = try #require(ProcessFigures.rssKB(d.pid))
        #expect(after - before < 2048, "RSS grew by \(after - before) kB for an 8 MB line")
    }

    @Test("max_clients: one more connection gets too_many_clients and is closed; the CLI exits 75")
    func maxClients() throws {
        let rig = try Rig("clients")
        let d = try SocketDaemon(rig, config: "socket:\n  max_clients: 3\n")
        var open: [RawClient] = []
        // A connection that has just closed (the harness's readiness probe) is counted until the
        // daemon sees it go, a moment later on a busy machine: each of the three is let in by then.
        for _ in 0..<3 {
            var admitted: RawClient?
            let ok = eventually(timeout: 5) {
                guard let c = try? RawClient(path: d.socket), let line = try? c.readLine(),
                      ReplyEncoder.replyClass(of: line) == "VERSION" else { return false }
                admitted = c
                return true
            }
            #expect(ok, "client \(open.count + 1) of 3 was not let in")
            if let admitted { open.append(admitted) }
        }
        try #require(open.count == 3)
        let extra = try #require(try? connectUnix(d.socket).get())
        defer { close(extra) }
        let refused = drain(extra, timeout: 5)
        #expect(refused.closed, "the connection over the limit was not closed")
        let error = try ReplyEncoder.decode(ErrorReply.self, from: try #require(refused.lines.first))
        #expect(error.code == .tooManyClients)
        #expect(error.message.contains("socket.max_clients"))
        let cli = try d.cli(["status"])
        #expect(cli.status == 75, "\(cli.err)")
        #expect(cli.err.contains("too_many_clients"))
        // A slot frees up when a client leaves.
        open.removeLast()
        #expect(eventually(timeout: 5) { (try? d.cli(["status"]).status) == 0 })
        // The ones already in keep working.
        open[0].send("?STATUS;\n")
        #expect(ReplyEncoder.replyClass(of: try open[0].readLine()) == "STATUS")
    }

    @Test("idle_timeout_s: a silent client is told and closed; a talking client and a watcher stay")
    func idleTimeout() throws {
        let rig = try Rig("idle")
        let d = try SocketDaemon(rig, config: "socket:\n  idle_timeout_s: 2\n")
        let silent = try #require(try? connectUnix(d.socket).get())
        defer { close(silent) }
        let talker = try RawClient(path: d.socket)
        _ = try talker.readLine()
        let watcher = try RawClient(path: d.socket)
        _ = try watcher.readLine()
        watcher.send("?WATCH={\"enable\":true};\n")
        let t0 = Date()
        var watched = 0
        // The waiting is the rule under test: 5 s, over twice the 2 s timeout, with the talker
        // speaking every 0.5 s (a quarter of it) and the silent client saying nothing.
        while Date().timeIntervalSince(t0) < 5 {
            talker.send("?STATUS;\n")
            #expect(ReplyEncoder.replyClass(of: try talker.readLine()) == "STATUS")
            usleep(500_000)
        }
        while let line = try? watcher.readLine(), ReplyEncoder.replyClass(of: line) == "STATUS" {
            watched += 1
            if watched >= 6 { break }
        }
        #expect(watched >= 5, "the watcher got \(watched) STATUS lines")
        let gone = drain(silent, timeout: 2)
        #expect(gone.closed)
        #expect(gone.lines.count == 2, "\(gone.lines)")
        let farewell = try ReplyEncoder.decode(ErrorReply.self, from: try #require(gone.lines.last))
        #expect(farewell.code == .idleTimeout)
        #expect(farewell.message.contains("socket.idle_timeout_s"))
        talker.send("?VERSION;\n")
        #expect(ReplyEncoder.replyClass(of: try talker.readLine()) == "VERSION")
    }

    @Test("max_requests_per_s: a burst beyond the limit gets rate_limited with its ids; the client recovers")
    func rateLimit() throws {
        let rig = try Rig("rate")
        let d = try SocketDaemon(rig, config: "socket:\n  max_requests_per_s: 5\n")
        let client = try RawClient(path: d.socket)
        _ = try client.readLine()
        client.send((0..<30).map { "?STATUS={\"id\":\($0)};\n" }.joined())
        var ok = 0
        var limited: [JSONValue] = []
        for _ in 0..<30 {
            let line = try client.readLine()
            if ReplyEncoder.replyClass(of: line) == "STATUS" {
                ok += 1
            } else {
                let e = try ReplyEncoder.decode(ErrorReply.self, from: line)
                #expect(e.code == .rateLimited)
                #expect(e.message.contains("socket.max_requests_per_s"))
                limited.append(try #require(e.id))
            }
        }
        #expect((5...7).contains(ok), "\(ok) answered")
        #expect(ok + limited.count == 30)
        #expect(Set(limited.map(\.serialized)).count == limited.count, "each refusal echoes its own id")
        // The bucket refills at 5 a second, so the client is answered again within a fraction of one;
        // each try before that is answered rate_limited and takes no token.
        let recovered = try eventually(timeout: 5) {
            client.send("?STATUS;\n")
            return ReplyEncoder.replyClass(of: try client.readLine()) == "STATUS"
        }
        #expect(recovered, "still rate_limited 5 s after the burst")
    }

    @Test("a watcher that does not read is dropped, a client that does not read its replies is slowed then timed out; memory stays bounded")
    func nonReadingClients() throws {
        let rig = try Rig("slow")
        let d = try SocketDaemon(rig, config: "socket:\n  max_requests_per_s: 100000\n  idle_timeout_s: 3\n")
        for _ in 0..<3 { _ = try d.status() }
        #expect(try d.cli(["start"]).status == 0)
        // The baseline once the session is under way: past its first commit (every 2 s of its clock).
        _ = try d.waitFor(timeout: 15, "the session's first commit") { $0.elapsedS >= 3 }
        let before = try #require(ProcessFigures.rssKB(d.pid))
        func stalledClient(_ text: String) throws -> Int32 {
            let fd = try connectUnix(d.socket).get()
            var small: Int32 = 4096
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            sendAll(fd, Array(text.utf8))
            return fd
        }
        // 8 watchers that never read, and 8 clients that ask for 4,000 ?CONFIG replies (~1 KB each) and never read them.
        let watchers = try (0..<8).map { _ in try stalledClient("?WATCH;\n") }
        let askers = try (0..<8).map { _ in try stalledClient(String(repeating: "?CONFIG;\n", count: 4000)) }
        defer { (watchers + askers).forEach { close($0) } }
        // Events flood the watchers: 4,000 laps from a client that reads its replies, timed as it goes.
        let lapper = try RawClient(path: d.socket)
        _ = try lapper.readLine()
        var worst = 0.0
        for i in 0..<4000 {
            let t = Date()
            lapper.send("?LAP={\"id\":\(i)};\n")
            let reply = try ReplyEncoder.decode(StatusReply.self, from: try lapper.read(class: "STATUS"))
            #expect(reply.id == .number(Double(i)))
            worst = max(worst, Date().timeIntervalSince(t))
        }
        let peak = try #require(ProcessFigures.rssKB(d.pid))
        #expect(worst < 0.5, "slowest reply to a reading client: \(worst) s")
        let watchersDropped = eventually(timeout: 10) {
            d.child.log.components(separatedBy: "does not read its updates").count - 1 >= 8
        }
        #expect(watchersDropped, "log: \(d.child.log.suffix(1500))")
        for fd in watchers { #expect(drain(fd, timeout: 5).closed) }
        // The askers slowed themselves down; the idle timeout ends them.
        for fd in askers { #expect(drain(fd, timeout: 10).closed) }
        print("NON-READING CLIENTS: 8 watchers dropped, 8 stalled askers timed out; RSS \(before) → \(peak) kB; "
            + "slowest of 4,000 replies to a reading client " + String(format: "%.1f ms", worst * 1000))
        #expect(peak - before < 8 * 1024, "RSS grew by \(peak - before) kB with 16 stalled clients")
        #expect(d.child.isRunning)
        #expect(try d.status().laps == 4000)
    }

    @Test("SIGTERM with a watcher, an idle client and a stalled one connected: the daemon still stops at once")
    func shutdownWithClients() throws {
        let rig = try Rig("bye")
        let d = try SocketDaemon(rig, config: "socket:\n  max_requests_per_s: 100000\n")
        let watcher = try connectUnix(d.socket).get()
        let idle = try connectUnix(d.socket).get()
        let stalled = try connectUnix(d.socket).get()
        defer { [watcher, idle, stalled].forEach { close($0) } }
        sendAll(watcher, Array("?WATCH;\n".utf8))
        sendAll(stalled, Array(String(repeating: "?CONFIG;\n", count: 3000).utf8))
        // The watcher is watching (its STATUS came) and the stalled client's replies are backed up
        // (3,000 of ~1 KB: more than its socket takes, so the daemon is holding the rest).
        #expect(eventually(timeout: 10) { String(decoding: peek(watcher), as: UTF8.self).contains(#"{"class":"STATUS""#) },
                "the watcher got no STATUS")
        #expect(eventually(timeout: 10) { peek(stalled).count >= 64 * 1024 }, "the stalled client's replies did not back up")
        let t0 = Date()
        d.child.signal(SIGTERM)
        let status = d.child.wait(timeout: 10)
        #expect(status == 0, "\(d.child.log.suffix(800))")
        #expect(Date().timeIntervalSince(t0) < 5)
        #expect(!FileManager.default.fileExists(atPath: d.socket))
        #expect(drain(watcher, timeout: 2).closed)
    }

    @Test("half-close: every complete line is answered before the connection ends; blank lines are not")
    func halfClose() throws {
        let rig = try Rig("half")
        let d = try SocketDaemon(rig)
        let fd = try connectUnix(d.socket).get()
        defer { close(fd) }
        sendAll(fd, Array("?STATUS;\n\n \t\r\n?VERSION;\n?NOPE;\n?CONFIG;".utf8))
        shutdown(fd, Int32(SHUT_WR))
        let got = drain(fd, timeout: 5)
        #expect(got.closed)
        #expect(got.lines.map { ReplyEncoder.replyClass(of: $0) ?? "?" } == ["VERSION", "STATUS", "VERSION", "ERROR"],
                "the half line ?CONFIG; at the end is not a request: \(got.lines)")
    }

    @Test("the id of every request comes back in its reply")
    func idEcho() throws {
        let rig = try Rig("ids")
        let d = try SocketDaemon(rig)
        let client = try RawClient(path: d.socket)
        _ = try client.readLine()
        let requests = ["?VERSION={\"id\":\"v\"};", "?STATUS={\"id\":\"s\"};", "?WATCH={\"enable\":false,\"id\":\"w\"};",
                        "?CONFIG={\"id\":\"c\"};", "?SESSIONS={\"id\":\"l\",\"limit\":1};", "?BADGES={\"id\":\"b\"};",
                        "?START={\"id\":\"go\",\"activity\":\"walk\"};", "?LAP={\"id\":\"lap\"};", "?PAUSE={\"id\":\"p\"};",
                        "?RESUME={\"id\":\"r\"};", "?STOP={\"id\":\"stop\"};", "?PAUSE={\"id\":\"p2\"};",
                        "?SESSION={\"id\":999};", "?NOPE={\"id\":\"n\"};", "?SESSIONS={\"id\":[1,{\"a\":null}]};"]
        for request in requests {
            client.send(request + "\n")
            let line = try client.readLine()
            let sent = try #require(try RequestParserProbe.id(of: request))
            let echoed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["id"]
            #expect(echoed.map { JSONSerializationProbe.text($0) } == JSONSerializationProbe.text(sent), "\(request) → \(line)")
        }
    }
}

/// The id a request line carries, as the daemon will see it.
enum RequestParserProbe {
    static func id(of line: String) throws -> Any? {
        guard let eq = line.firstIndex(of: "=") else { return nil }
        let json = line[line.index(after: eq)...].dropLast()
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return object?["id"]
    }
}

enum JSONSerializationProbe {
    /// Canonical text of a JSON fragment, for comparing ids.
    static func text(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]) else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }
}
