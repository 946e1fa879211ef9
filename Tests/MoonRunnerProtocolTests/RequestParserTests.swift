import Foundation
import Testing
@testable import MoonRunnerProtocol

@Suite("Request parser")
struct RequestParserTests {
    @Test("every request of the protocol parses", arguments: [
        ("?VERSION;", Request.Command.version),
        ("?STATUS;", .status),
        ("  ?STATUS;  \r", .status),
        ("?WATCH={\"enable\":true};", .watch(enable: true)),
        ("?WATCH={\"enable\":false};", .watch(enable: false)),
        ("?START={\"activity\":\"run\"};", .start(activity: "run")),
        ("?START;", .start(activity: nil)),
        ("?PAUSE;", .pause), ("?RESUME;", .resume), ("?LAP;", .lap), ("?STOP;", .stop),
        ("?SESSIONS;", .sessions(limit: 20, before: nil)),
        ("?SESSIONS={\"limit\":5,\"before\":40};", .sessions(limit: 5, before: 40)),
        ("?SESSION={\"id\":12};", .session(id: 12)),
        ("?EXPORT={\"id\":12,\"format\":\"gpx\"};", .export(id: 12, format: "gpx")),
        ("?BADGES;", .badges), ("?DELETE={\"id\":3};", .delete(id: 3)), ("?CONFIG;", .config),
        ("?status;", .status),
    ])
    func parses(line: String, command: Request.Command) throws {
        #expect(try RequestParser.parse(line).command == command)
    }

    @Test("bad lines give stable error codes", arguments: [
        ("STATUS", RequestError.Code.syntax),
        ("", .syntax),
        ("?;", .syntax),
        ("?ST4TUS;", .syntax),
        ("?FLY;", .unknownCommand),
        ("?START={;", .badJSON),
        ("?START=[1];", .badJSON),
        ("?WATCH={\"enable\":1};", .badParameter),
        ("?SESSION;", .badParameter),
        ("?SESSION={\"id\":-1};", .badParameter),
        ("?SESSION={\"id\":1.5};", .badParameter),
        ("?SESSIONS={\"limit\":100000};", .badParameter),
        ("?EXPORT={\"id\":1};", .badParameter),
    ])
    func errors(line: String, code: RequestError.Code) {
        #expect(throws: RequestError.self) { try RequestParser.parse(line) }
        do {
            _ = try RequestParser.parse(line)
        } catch {
            #expect(error.code == code)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("an id is carried and the wire form round-trips")
    func idAndRoundTrip() throws {
        let r = try RequestParser.parse("?STATUS={\"id\":\"x1\"};")
        #expect(r.id == .string("x1"))
        for command: Request.Command in [.status, .watch(enable: true), .start(activity: "walk"), .sessions(limit: 3, before: 9),
                                         .session(id: 4), .export(id: 2, format: "fit"), .delete(id: 8)] {
            #expect(try RequestParser.parse(Request(command: command).line).command == command)
        }
    }

    @Test("replies are single JSON lines with a class")
    func replies() throws {
        let line = ReplyEncoder.line(ErrorReply(RequestError(.syntax, "bad\nline", id: .number(3))))
        #expect(!line.contains("\n"))
        #expect(ReplyEncoder.replyClass(of: line) == "ERROR")
        let back = try ReplyEncoder.decode(ErrorReply.self, from: line)
        #expect(back.code == .syntax && back.id == .number(3))
        #expect(ReplyEncoder.replyClass(of: ReplyEncoder.line(VersionReply())) == "VERSION")
    }
}

@Suite("Request parser: strictness")
struct RequestParserStrictnessTests {
    @Test("unknown parameters are refused, naming the ones that exist", arguments: [
        "?SESSIONS={\"limt\":5};", "?STATUS={\"verbose\":true};", "?WATCH={\"enabled\":true};",
        "?EXPORT={\"id\":1,\"format\":\"gpx\",\"to\":\"x\"};",
    ])
    func unknownParameter(line: String) {
        do {
            _ = try RequestParser.parse(line)
            Issue.record("\(line) was accepted")
        } catch {
            #expect(error.code == .badParameter)
            #expect(error.message.contains("\"id\""))
        }
    }

    @Test("export formats and activities are checked by the parser")
    func values() throws {
        #expect(try RequestParser.parse("?EXPORT={\"id\":2,\"format\":\"GPX\"};").command == .export(id: 2, format: "gpx"))
        for format in RequestParser.exportFormats {
            #expect(try RequestParser.parse(Request(command: .export(id: 1, format: format)).line).command == .export(id: 1, format: format))
        }
        #expect(throws: RequestError.self) { try RequestParser.parse("?EXPORT={\"id\":2,\"format\":\"kml\"};") }
        #expect(throws: RequestError.self) { try RequestParser.parse("?START={\"activity\":\"swim\"};") }
    }

    @Test("each of the five activities starts a session; an unknown one is bad_parameter naming the five")
    func activities() throws {
        for a in ["run", "trail_run", "walk", "hike", "ride"] {
            #expect(try RequestParser.parse("?START={\"activity\":\"\(a)\"};").command == .start(activity: a))
        }
        do {
            _ = try RequestParser.parse("?START={\"activity\":\"swim\"};")
            Issue.record("swim was taken")
        } catch {
            #expect(error.code == .badParameter)
            #expect(error.message.contains("must be one of run, trail_run, walk, hike, ride"), "\(error.message)")
        }
    }

    @Test("blank lines are recognised byte by byte")
    func blank() {
        #expect(RequestParser.isBlank(Array("".utf8)))
        #expect(RequestParser.isBlank(Array(" \t \r".utf8)))
        #expect(!RequestParser.isBlank(Array(" ?".utf8)))
        #expect(!RequestParser.isBlank([0]))
    }

    @Test("the id is echoed even when the request is refused")
    func idOnErrors() {
        for line in ["?NOPE={\"id\":42};", "?SESSION={\"id\":\"x\"};", "?SESSIONS={\"id\":42,\"limit\":0};"] {
            do {
                _ = try RequestParser.parse(line)
                Issue.record("\(line) was accepted")
            } catch {
                #expect(error.id != nil, "\(line)")
            }
        }
    }

    @Test("random bytes never crash the parser, and every failure says what to do")
    func randomBytes() {
        var rng = SplitMix(seed: 7)
        let pieces = ["?", ";", "=", "{", "}", "[", "]", "\"", ":", ",", "STATUS", "SESSION", "id", "1e309", "-0", "null",
                      "true", "\\u0000", "\u{FFFD}", "🏃", " ", "\t", "\r"]
        for _ in 0..<20_000 {
            var line = ""
            for _ in 0..<Int(rng.next() % 12) {
                line += rng.next() % 4 == 0 ? String(UnicodeScalar(UInt8(rng.next() % 128))) : pieces[Int(rng.next() % UInt64(pieces.count))]
            }
            do {
                _ = try RequestParser.parse(line)
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }
}

/// A small deterministic generator, so that a failure can be reproduced.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
