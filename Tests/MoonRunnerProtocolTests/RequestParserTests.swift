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
