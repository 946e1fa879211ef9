import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerProtocol

@Suite("Replies on the wire")
struct ReplyTests {
    @Test("class comes first, keys are sorted, one line")
    func classFirst() throws {
        let status = StatusReply(time: 1, state: .idle, session: nil, stats: nil,
                                 gps: GPSStatus(health: .ok, grade: .best, fixes: 3, connects: 1),
                                 imu: IMUStatus(health: .ok, samples: 1, rejected: 0, busErrors: 0, overflows: 0),
                                 store: StoreStatus(health: .ok, pending: 0, lastError: nil),
                                 lastTransition: nil, units: .metric, id: .string("a\"b,\"class\":x"))
        let line = ReplyEncoder.line(status)
        #expect(line.hasPrefix(#"{"class":"STATUS","#))
        #expect(!line.contains("\n"))
        // The nested objects keep their own keys; the id with a fake "class" inside stays a string.
        let back = try ReplyEncoder.decode(StatusReply.self, from: line)
        #expect(back == status)
        #expect(ReplyEncoder.replyClass(of: line) == "STATUS")
        // Same reply, same text.
        #expect(ReplyEncoder.line(status) == line)
    }

    @Test("STATUS carries the altitude source and the barometer's health with its counters")
    func barometerInStatus() throws {
        let status = StatusReply(time: 1, state: .recording, session: 3, stats: SessionStats(),
                                 gps: GPSStatus(health: .ok, grade: .best, fixes: 3, connects: 1),
                                 imu: IMUStatus(health: .ok, samples: 1, rejected: 0, busErrors: 0, overflows: 0),
                                 baro: BaroStatus(health: .degraded, samples: 90, rejected: 4, levelShifts: 1, busErrors: 2,
                                                  reinitializations: 1, device: "BMP280 at 0x76 on /dev/i2c-1",
                                                  lastError: "I2C I/O error (EIO)"),
                                 altitudeSource: .barometric,
                                 store: StoreStatus(health: .ok, pending: 0, lastError: nil),
                                 lastTransition: nil, units: .metric)
        let line = ReplyEncoder.line(status)
        #expect(line.contains(#""altitude_source":"barometric""#))
        #expect(line.contains(#""baro":{"bus_errors":2,"device":"BMP280 at 0x76 on /dev/i2c-1","health":"degraded","#
                              + #""last_error":"I2C I/O error (EIO)","level_shifts":1,"reinitializations":1,"rejected":4,"samples":90}"#))
        #expect(try ReplyEncoder.decode(StatusReply.self, from: line) == status)
        let none = ReplyEncoder.line(StatusReply(time: 1, state: .idle, session: nil, stats: nil,
                                                 gps: GPSStatus(health: .ok, grade: .best, fixes: 0, connects: 1),
                                                 imu: IMUStatus(health: .ok, samples: 0, rejected: 0, busErrors: 0, overflows: 0),
                                                 store: StoreStatus(health: .ok, pending: 0, lastError: nil),
                                                 lastTransition: nil, units: .metric))
        #expect(none.contains(#""baro":{"bus_errors":0,"device":null,"health":"none","#))
        #expect(none.contains(#""altitude_source":"gps""#))
    }

    @Test("STATUS carries the heart rate, its state and health, and which method gave calories_kcal (null when idle)")
    func heartRateInStatus() throws {
        let gps = GPSStatus(health: .ok, grade: .best, fixes: 3, connects: 1)
        let imu = IMUStatus(health: .ok, samples: 1, rejected: 0, busErrors: 0, overflows: 0)
        let store = StoreStatus(health: .ok, pending: 0, lastError: nil)
        let live = StatusReply(time: 1, state: .recording, session: 3, stats: SessionStats(), gps: gps, imu: imu,
                               store: store, lastTransition: nil, units: .metric, caloriesKcal: 12.5,
                               hrBpm: 152, hrZone: 4, hrState: .connected,
                               hr: HeartRateStatus(health: .ok, device: "Polar H10 (A0:9E:1A:8C:1A:2B)", notifications: 9,
                                                   samples: 9, connects: 1),
                               caloriesMethod: .heartRate)
        let line = ReplyEncoder.line(live)
        for part in [#""calories_method":"heart_rate""#, #""hr_bpm":152"#, #""hr_zone":4"#, #""hr_state":"connected""#,
                     #""health":"ok""#, #""device":"Polar H10 (A0:9E:1A:8C:1A:2B)""#] {
            #expect(line.contains(part), "\(part) in \(line)")
        }
        #expect(try ReplyEncoder.decode(StatusReply.self, from: line) == live)
        let idle = ReplyEncoder.line(StatusReply(time: 1, state: .idle, session: nil, stats: nil, gps: gps, imu: imu,
                                                 store: store, lastTransition: nil, units: .metric))
        #expect(idle.contains(#""calories_method":null"#) && idle.contains(#""hr_bpm":null"#)
                && idle.contains(#""hr_state":"none""#) && idle.contains(#""hr":{"connects":0,"device":null,"health":"none""#))
    }

    @Test("a class member in the middle of nested objects is found at the top level only")
    func classFirstScanner() {
        let json = Array(#"{"a":{"class":"INNER"},"b":["class",{"class":"X"}],"class":"TOP","z":1}"#.utf8)
        let moved = String(decoding: ReplyEncoder.classFirst(json), as: UTF8.self)
        #expect(moved == #"{"class":"TOP","a":{"class":"INNER"},"b":["class",{"class":"X"}],"z":1}"#)
        let last = Array(#"{"a":1,"class":"END"}"#.utf8)
        #expect(String(decoding: ReplyEncoder.classFirst(last), as: UTF8.self) == #"{"class":"END","a":1}"#)
        let none = Array(#"{"a":"\"class\":\"no\""}"#.utf8)
        #expect(ReplyEncoder.classFirst(none) == none)
    }

    @Test("every error code has a stable wire name", arguments: RequestError.Code.allCases)
    func errorCodes(code: RequestError.Code) throws {
        let line = ReplyEncoder.line(ErrorReply(RequestError(code, "what to do", id: .number(7))))
        #expect(line.hasPrefix(#"{"class":"ERROR","code":"\#(code.rawValue)""#))
        let back = try ReplyEncoder.decode(ErrorReply.self, from: line)
        #expect(back.code == code && back.id == .number(7) && back.message == "what to do")
        #expect(code.rawValue.allSatisfy { $0.isLowercase || $0 == "_" })
    }

    @Test("VERSION carries the protocol major and minor")
    func version() throws {
        let line = ReplyEncoder.line(VersionReply())
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["proto_major"] as? Int == ProtocolVersion.major)
        #expect(json["proto_minor"] as? Int == ProtocolVersion.minor)
        #expect(json["release"] as? String == MoonRunnerRelease.version)
    }

    @Test("BADGES: tiers, sessions and the next badge of a live session")
    func badges() throws {
        let sessions = [
            BadgeSessionSummary(id: 1, distance: 1_200, moving: 600, startTime: 100),
            BadgeSessionSummary(id: 2, distance: 1_100, moving: 500, startTime: 200),   // 10 % faster than #1: gold
            BadgeSessionSummary(id: 3, distance: 5_500, moving: 2_000, startTime: 300),
        ]
        let board = BadgeBoard(sessions: sessions)
        let reply = BadgesReply(activity: .run, board: board, live: (session: 4, distance: 2_500), id: .string("b"))
        let line = ReplyEncoder.line(reply)
        #expect(line.hasPrefix(#"{"class":"BADGES""#))
        let back = try ReplyEncoder.decode(BadgesReply.self, from: line)
        #expect(back == reply)
        let moon = try #require(back.badges.first { $0.badge == "moon" })
        #expect(moon.earned?.session == 1)
        #expect(moon.tier == "gold")
        #expect(moon.gold?.session == 2)
        let venus = try #require(back.badges.first { $0.badge == "venus" })
        #expect(venus.earned?.session == 3 && venus.tier == "earned")
        let pluto = try #require(back.badges.first { $0.badge == "pluto" })
        #expect(pluto.tier == nil && pluto.earned == nil)
        #expect(back.session == 4)
        #expect(back.next?.badge == "mercury")
        #expect(abs((back.next?.leftM ?? 0) - 500) < 1e-9)
        #expect(BadgesReply(activity: .run, board: board, live: nil).next == nil)
    }
}

@Suite("Streamed exports")
struct ExportStreamTests {
    /// Sends a file through the stream and back through the assembler, line by line.
    func roundTrip(_ file: ExportFile, chunk: Int) throws -> (Data, ExportReply, Int) {
        let stream = ExportStream(file: file, id: .number(5), chunkBytes: chunk)
        let header = try ReplyEncoder.decode(ExportReply.self, from: stream.headerLine)
        var assembler = try ExportAssembler(header: header)
        var out = Data()
        var longest = 0
        for seq in 0..<stream.chunkCount {
            let line = stream.chunkLine(seq)
            #expect(!line.contains("\n"))
            #expect(line.hasPrefix(#"{"class":"EXPORT_DATA""#))
            longest = max(longest, line.utf8.count)
            let piece = try assembler.accept(try ReplyEncoder.decode(ExportDataReply.self, from: line))
            #expect(piece.count <= chunk && !piece.isEmpty)
            out += piece
        }
        #expect(assembler.isComplete)
        return (out, header, longest)
    }

    @Test("text streams as UTF-8 pieces that never split a character")
    func text() throws {
        // Multi-byte characters everywhere, so that many cuts fall inside one.
        let text = String(repeating: "Zürich → Genève 🏃 <trkpt lat=\"46.2\"/>\n", count: 3000)
        let file = ExportFile(session: 9, format: "gpx", mediaType: "application/gpx+xml", data: Data(text.utf8))
        for chunk in [7, 1000, 48 * 1024] {
            let (data, header, longest) = try roundTrip(file, chunk: chunk)
            #expect(data == file.data)
            #expect(header.encoding == "utf8" && header.bytes == file.data.count && header.id == .number(5))
            #expect(header.chunks >= (file.data.count + chunk - 1) / chunk)
            // Pieces are bounded: JSON escaping at most doubles the quotes here.
            #expect(longest < 2 * chunk + 200)
        }
    }

    @Test("binary streams as base64")
    func binary() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) } + [0xFF, 0xFE]
        let file = ExportFile(session: 3, format: "fit", mediaType: "application/vnd.ant.fit", data: Data(bytes))
        let (data, header, _) = try roundTrip(file, chunk: 48 * 1024)
        #expect(header.encoding == "base64")
        #expect(header.chunks == 5)
        #expect(data == file.data)
    }

    @Test("an empty file has no pieces")
    func empty() throws {
        let (data, header, _) = try roundTrip(ExportFile(session: 1, format: "csv", mediaType: "text/csv", data: Data()), chunk: 10)
        #expect(data.isEmpty && header.chunks == 0 && header.bytes == 0)
    }

    @Test("out-of-order, foreign and oversize pieces are refused")
    func refusals() throws {
        let file = ExportFile(session: 1, format: "csv", mediaType: "text/csv", data: Data("abcdefghij".utf8))
        let stream = ExportStream(file: file, id: nil, chunkBytes: 4)
        let header = try ReplyEncoder.decode(ExportReply.self, from: stream.headerLine)
        var a = try ExportAssembler(header: header)
        #expect(throws: ExportAssembler.Failure.self) {
            _ = try a.accept(try ReplyEncoder.decode(ExportDataReply.self, from: stream.chunkLine(1)))
        }
        _ = try a.accept(try ReplyEncoder.decode(ExportDataReply.self, from: stream.chunkLine(0)))
        #expect(throws: ExportAssembler.Failure.self) {
            _ = try a.accept(ExportDataReply(session: 1, seq: 1, data: String(repeating: "x", count: 20)))
        }
        var b = try ExportAssembler(header: ExportReply(session: 1, format: "fit", mediaType: "x", encoding: "base64",
                                                        bytes: 3, chunks: 1))
        #expect(throws: ExportAssembler.Failure.self) { _ = try b.accept(ExportDataReply(session: 1, seq: 0, data: "!!")) }
        #expect(throws: ExportAssembler.Failure.self) {
            _ = try ExportAssembler(header: ExportReply(session: 1, format: "x", mediaType: "x", encoding: "rot13", bytes: 0, chunks: 0))
        }
    }
}
