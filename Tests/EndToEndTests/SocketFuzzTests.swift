import Foundation
import MoonRunnerProtocol
import Testing

/// Random and mutated requests against a daemon that is recording a session:
/// bad JSON, binary bytes, huge lines, unknown classes, half lines, slow
/// writers, abrupt closes. `make test` sends 5,000 lines; `MOONRUNNER_SOAK=1`
/// (`make soak`) sends 100,000.
@Suite("Control socket: fuzz", .serialized)
struct SocketFuzzTests {
    static let soak = ProcessInfo.processInfo.environment["MOONRUNNER_SOAK"] == "1"

    @Test("the daemon answers every complete line, stays within 2 MB of RSS and records every point")
    func fuzz() throws {
        let total = Self.soak ? 100_000 : 5_000
        let maxLine = 4096
        let rig = try Rig("fuzz")
        // The soak takes minutes: replay the walk slower so that it is still going at the end.
        let speed: Double = Self.soak ? 3 : 10
        try rig.startGPS(epochsPerSecond: speed)
        let d = try SocketDaemon(rig, speed: speed,
                                 config: "socket:\n  max_requests_per_s: 100000\n  max_line_bytes: \(maxLine)\n")
        #expect(try d.cli(["start", "--activity", "walk"]).status == 0)
        _ = try d.waitFor(timeout: 40, "a moving session") { $0.distanceM > 5 && $0.steps > 5 }

        var fuzzer = Fuzzer(seed: 20_261_122, maxLine: maxLine)
        let watcher = WatchCounter(path: d.socket)
        let stalledWatcher = try connectUnix(d.socket).get()
        defer { close(stalledWatcher) }
        sendAll(stalledWatcher, Array("?WATCH;\n".utf8))

        // Warm-up with the same mix, then the baseline.
        var warm = FuzzTally()
        try fuzzer.run(lines: 2_000, path: d.socket, tally: &warm)
        #expect(warm.answered == warm.expected, "warm-up: \(warm); log: \(d.child.log.split(separator: "\n").filter { !$0.contains("debug") || $0.contains("ended") }.suffix(30).joined(separator: "\n"))")
        // Memory is compared with every fuzzing connection let go by the daemon (only the two
        // watchers left), not while it is still tearing some down.
        #expect(eventually(timeout: 10) { let c = d.clients; return c.open <= 2 && c.all >= warm.connections + 2 },
                "the warm-up's connections are still open: \(d.clients)")
        let rssBefore = try #require(ProcessFigures.rssKB(d.pid))
        let before = try d.status()
        let t0 = Date()

        var tally = FuzzTally()
        try fuzzer.run(lines: total, path: d.socket, tally: &tally)
        let seconds = Date().timeIntervalSince(t0)
        #expect(eventually(timeout: 10) { let c = d.clients; return c.open <= 2 && c.all >= warm.connections + tally.connections + 2 },
                "the fuzzing connections are still open: \(d.clients)")
        let rssAfter = try #require(ProcessFigures.rssKB(d.pid))
        let after = try d.status()
        watcher.stop()

        print("FUZZ: \(tally.sent) lines sent (\(tally.bytes / 1024) KiB) on \(tally.connections) connections in "
            + String(format: "%.1f s", seconds) + "; counted connections: \(tally.expected) complete non-blank lines, "
            + "\(tally.answered) answered (\(tally.errors) ERROR); \(tally.abrupt) abrupt closes, \(tally.slow) slow writers, "
            + "\(tally.huge) lines over \(maxLine) bytes; RSS \(rssBefore) → \(rssAfter) kB (\(rssAfter - rssBefore) kB); "
            + "watcher got \(watcher.statuses) STATUS; GPS fixes \(before.gps.fixes) → \(after.gps.fixes)")

        #expect(d.child.isRunning, "the daemon died: \(d.child.log.suffix(2000))")
        #expect(tally.sent >= total)
        #expect(tally.answered == tally.expected, "\(tally.mismatches.prefix(5))")
        #expect(tally.mismatches.isEmpty)
        #expect(rssAfter - rssBefore < 2048, "RSS grew by \(rssAfter - rssBefore) kB")
        #expect(watcher.statuses >= Int(seconds) / 2, "a reading watcher was starved: \(watcher.statuses) STATUS in \(seconds) s")

        // The recording went on meanwhile and lost nothing on its way to the store.
        #expect(after.gps.fixes > before.gps.fixes)
        #expect(after.elapsedS > before.elapsedS)
        #expect(after.distanceM >= before.distanceM)
        #expect(after.session == before.session)
        let stop = try d.cli(["stop", "--json"])
        #expect(stop.status == 0)
        let id = try #require(after.session)
        let show = try ReplyEncoder.decode(SessionReply.self, from: try d.cli(["show", String(id), "--json"]).out)
        #expect(show.points == show.stats.points, "stored \(show.points) points, the engine accepted \(show.stats.points)")
        #expect(show.points > 0)
    }
}

/// Counts of one fuzz run.
struct FuzzTally: CustomStringConvertible {
    var sent = 0
    var bytes = 0
    var connections = 0
    /// Complete non-blank lines on connections that read to the end.
    var expected = 0
    var answered = 0
    var errors = 0
    var abrupt = 0
    var slow = 0
    var huge = 0
    var mismatches: [String] = []

    var description: String { "sent \(sent), expected \(expected), answered \(answered), mismatches \(mismatches.prefix(3))" }
}

/// Makes the lines and plays the connections.
struct Fuzzer {
    var rng: FuzzRandom
    let maxLine: Int

    init(seed: UInt64, maxLine: Int) {
        rng = FuzzRandom(seed: seed)
        self.maxLine = maxLine
    }

    static let readOnly = ["?STATUS;", "?VERSION;", "?CONFIG;", "?SESSIONS;", "?SESSIONS={\"limit\":3,\"id\":\"q\"};",
                           "?SESSION={\"id\":1};", "?BADGES;", "?EXPORT={\"id\":1,\"format\":\"gpx\"};",
                           "?WATCH={\"enable\":false};", "?STATUS={\"id\":17};"]
    static let changing = ["?START={\"activity\":\"run\"};", "?PAUSE;", "?RESUME;", "?LAP;", "?STOP;",
                           "?DELETE={\"id\":1};", "?WATCH={\"enable\":true};", "?WATCH;"]
    static let tokens = ["{", "}", "[", "]", "\"", ":", ",", "=", ";", "?", "null", "true", "1e999", "-1", "0.5",
                         "\"id\"", "\\", "\\u0000", "é", "🏃", "\u{0}", "\t", "\r"]

    /// Plays connections until `lines` lines were sent.
    mutating func run(lines: Int, path: String, tally: inout FuzzTally) throws {
        var left = lines
        while left > 0 {
            let roll = rng.below(100)
            if roll < 15 {
                left -= try abruptClose(path: path, tally: &tally)
            } else {
                let count = min(left, roll < 25 ? 1 + rng.below(40) : 20 + rng.below(300))
                try counted(count, slow: roll < 25, path: path, tally: &tally)
                left -= count
            }
        }
    }

    /// A connection that sends `count` lines, reads every reply, half-closes
    /// and checks that each complete non-blank line got exactly one reply.
    mutating func counted(_ count: Int, slow: Bool, path: String, tally: inout FuzzTally) throws {
        let fd = try connectUnix(path).get()
        defer { close(fd) }
        let reader = ReplyCounter(fd: fd)
        var expected = 0
        var wire: [UInt8] = []
        for _ in 0..<count {
            let line = makeLine()
            if line.count > maxLine { tally.huge += 1 }
            if line.count > maxLine || !RequestParserBytes.isBlank(line) { expected += 1 }
            wire += line
            wire.append(10)
            // Keep at most ~200 replies in flight, as a real client would.
            if wire.count > 16_384 || slow {
                send(wire, slow: slow, fd: fd)
                tally.bytes += wire.count
                wire.removeAll(keepingCapacity: true)
                reader.waitUntil(answered: expected - 200)
            }
        }
        // Sometimes a half line before the close: not a request, no reply.
        if rng.below(4) == 0 { wire += Array("?STAT".utf8) }
        send(wire, slow: slow, fd: fd)
        tally.bytes += wire.count
        shutdown(fd, Int32(SHUT_WR))
        let result = reader.finish()
        tally.sent += count
        tally.connections += 1
        if slow { tally.slow += 1 }
        tally.expected += expected
        tally.answered += result.replies
        tally.errors += result.errors
        if result.replies != expected { tally.mismatches.append("sent \(expected) lines, \(result.replies) replies; last: \(result.last)") }
        if !result.greeted { tally.mismatches.append("no VERSION greeting") }
    }

    /// Sends some lines and a half line, then closes without reading (sometimes with a reset).
    mutating func abruptClose(path: String, tally: inout FuzzTally) throws -> Int {
        let fd = try connectUnix(path).get()
        let count = 1 + rng.below(30)
        var wire: [UInt8] = []
        for _ in 0..<count {
            wire += makeLine()
            wire.append(10)
        }
        wire += makeLine().prefix(rng.below(50))
        sendAll(fd, wire)
        if rng.below(2) == 0 {
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        }
        close(fd)
        tally.sent += count
        tally.bytes += wire.count
        tally.abrupt += 1
        tally.connections += 1
        return count
    }

    private mutating func send(_ bytes: [UInt8], slow: Bool, fd: Int32) {
        guard slow else {
            sendAll(fd, bytes)
            return
        }
        var i = 0
        while i < bytes.count {
            let n = min(bytes.count - i, 1 + rng.below(300))
            sendAll(fd, Array(bytes[i..<(i + n)]))
            i += n
            // A slow writer is the input under test: up to 1.5 ms between pieces.
            usleep(UInt32(rng.below(1500)))
        }
    }

    /// One line without its newline.
    mutating func makeLine() -> [UInt8] {
        var line: [UInt8]
        switch rng.below(100) {
        case 0..<12: line = Array(Self.readOnly[rng.below(Self.readOnly.count)].utf8)
        case 12..<45:
            let pool = rng.below(3) == 0 ? Self.changing : Self.readOnly
            line = mutate(Array(pool[rng.below(pool.count)].utf8))
        case 45..<60: line = (0..<rng.below(200)).map { _ in UInt8(rng.below(256)) }
        case 60..<70: line = Array("?\(["FOO", "XYZZY", "STATU", "SESSIONSS", "É", "", "STATUS2"][rng.below(7)])\(rng.below(2) == 0 ? ";" : "={\"id\":\(rng.below(99))};")".utf8)
        case 70..<78: line = Array("?SESSION=".utf8) + nested()
        case 78..<79: line = [UInt8](repeating: UInt8(ascii: "x"), count: maxLine + 1 + rng.below(200_000))
        case 79..<83: line = Array("?STATUS={\"id\":\"".utf8) + [UInt8](repeating: 0x41, count: maxLine - 40 + rng.below(80)) + Array("\"};".utf8)
        case 83..<88: line = (0..<rng.below(6)).map { _ in [0x20, 0x09, 0x0D][rng.below(3)] }
        case 88..<94: line = Array("  ?STATUS;\r".utf8)
        default: line = Array(Self.readOnly[rng.below(Self.readOnly.count)].lowercased().utf8)
        }
        for i in line.indices where line[i] == 10 { line[i] = 0x20 }
        return filtered(line)
    }

    /// Mutated lines that happen to be valid state changes or watches are
    /// swapped for a read-only request: the fuzz must not stop the session
    /// it checks, and watcher traffic would make replies uncountable.
    private func filtered(_ line: [UInt8]) -> [UInt8] {
        guard line.count <= maxLine, let request = try? RequestParser.parse(String(decoding: line, as: UTF8.self)) else {
            return line
        }
        if request.command.changesState { return Array("?STATUS;".utf8) }
        if case .watch(true) = request.command { return Array("?VERSION;".utf8) }
        return line
    }

    private mutating func mutate(_ base: [UInt8]) -> [UInt8] {
        var line = base
        for _ in 0..<(1 + rng.below(4)) {
            guard !line.isEmpty else { break }
            let i = rng.below(line.count)
            switch rng.below(7) {
            case 0: line[i] ^= UInt8(1 << rng.below(8))
            case 1: line.removeSubrange(i..<min(line.count, i + 1 + rng.below(6)))
            case 2: line.insert(contentsOf: Array(Self.tokens[rng.below(Self.tokens.count)].utf8), at: i)
            case 3: line.insert(contentsOf: line[i..<min(line.count, i + 1 + rng.below(10))], at: i)
            case 4: line = Array(line.prefix(i))
            case 5: line[i] = UInt8(rng.below(256))
            default: line.insert(contentsOf: Array(String(rng.below(1 << 30)).utf8), at: i)
            }
        }
        return line
    }

    private mutating func nested() -> [UInt8] {
        let depth = rng.below(1500)
        let open = (0..<depth).map { _ in rng.below(2) == 0 ? UInt8(ascii: "[") : UInt8(ascii: "{") }
        return open + Array("1".utf8) + open.reversed().map { $0 == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}") }
            + Array(";".utf8)
    }
}

/// The server's own blank-line rule, on bytes.
enum RequestParserBytes {
    static func isBlank(_ line: [UInt8]) -> Bool { RequestParser.isBlank(line) }
}

/// Reads a connection's replies on a thread and counts them.
final class ReplyCounter: @unchecked Sendable {
    private let fd: Int32
    private let condition = NSCondition()
    private var replies = 0
    private var errors = 0
    private var greeted = false
    private var ended = false
    private var last = ""
    private var thread: Thread?

    init(fd: Int32) {
        self.fd = fd
        var tv = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let t = Thread { [self] in loop() }
        thread = t
        t.start()
    }

    private func loop() {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var exportChunksLeft = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending.append(contentsOf: chunk[..<n])
            var start = 0
            while let nl = pending[start...].firstIndex(of: 10) {
                let line = String(decoding: pending[start..<nl], as: UTF8.self)
                start = nl + 1
                condition.lock()
                if !greeted, ReplyEncoder.replyClass(of: line) == "VERSION" {
                    greeted = true
                } else if exportChunksLeft > 0 {
                    exportChunksLeft -= 1
                } else {
                    replies += 1
                    last = String(line.prefix(160))
                    if line.hasPrefix(#"{"class":"ERROR""#) { errors += 1 }
                    if line.hasPrefix(#"{"class":"EXPORT","#), let header = try? ReplyEncoder.decode(ExportReply.self, from: line) {
                        exportChunksLeft = header.chunks
                    }
                }
                condition.broadcast()
                condition.unlock()
            }
            pending.removeSubrange(0..<start)
        }
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    func waitUntil(answered: Int) {
        condition.lock()
        while replies < answered && !ended { _ = condition.wait(until: Date().addingTimeInterval(1)) }
        condition.unlock()
    }

    /// Waits for the end of the stream.
    func finish() -> (replies: Int, errors: Int, greeted: Bool, last: String) {
        condition.lock()
        while !ended { _ = condition.wait(until: Date().addingTimeInterval(1)) }
        defer { condition.unlock() }
        return (replies, errors, greeted, last)
    }
}

/// A watcher that reads and counts its STATUS lines, on a thread.
final class WatchCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var fd: Int32 = -1

    init(path: String) {
        guard let fd = try? connectUnix(path).get() else { return }
        self.fd = fd
        sendAll(fd, Array("?WATCH={\"enable\":true};\n".utf8))
        Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                let text = String(decoding: chunk[..<n], as: UTF8.self)
                let found = text.components(separatedBy: #"{"class":"STATUS""#).count - 1
                lock.lock()
                count += found
                lock.unlock()
            }
        }.start()
    }

    var statuses: Int {
        lock.lock()
        defer { lock.unlock() }
        return max(0, count - 1) // the first is the reply to ?WATCH
    }

    func stop() {
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { if fd >= 0 { close(fd) } }
}

/// splitmix64, so that a failing run can be replayed from its seed.
struct FuzzRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
}
