import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerStore
import Testing
@testable import MoonRunnerDaemon

/// The protocol over the typed service: request lines in, reply lines out, as a connection sees them.
@Suite("Request router (real store, no sockets)")
struct RequestRouterTests {
    /// A router over a fresh service, and one client of it whose watcher lines land in `sink`.
    struct Rig {
        let service: SessionService
        let store: SessionStore
        let router: RequestRouter
        let sink: WatcherSink
        var client: RequestRouter.Client

        init() throws {
            let (service, store) = try SessionServiceTests.service()
            let sink = WatcherSink()
            self.sink = sink
            self.service = service
            self.store = store
            router = RequestRouter(config: DaemonConfig(stateDir: store), service: service,
                                   archive: SessionServiceTests.archive(service, store), logger: Logger(label: "test"))
            client = RequestRouter.Client(id: 1, watcher: { [sink] in sink.receive($0) })
        }

        /// The reply lines to one request line (an export's header and pieces).
        mutating func send(_ line: String) async throws -> [String] {
            let request = try RequestParser.parse(line)
            return await send(request)
        }

        mutating func send(_ request: Request) async -> [String] {
            switch await router.reply(to: request, from: &client) {
            case let .line(text): return [text]
            case let .export(stream): return [stream.headerLine] + (0..<stream.chunkCount).map(stream.chunkLine)
            }
        }

        /// The one reply line to `command`.
        mutating func reply(_ command: Request.Command) async throws -> String {
            try #require(await send(Request(command: command)).first)
        }

        mutating func error(_ line: String) async throws -> ErrorReply {
            try await error(try RequestParser.parse(line))
        }

        mutating func error(_ request: Request) async throws -> ErrorReply {
            try ReplyEncoder.decode(ErrorReply.self, from: try #require(await send(request).first))
        }
    }

    @Test("a reply carries the request's id back, an error's too")
    func idEchoed() async throws {
        var rig = try Rig()
        let version = try ReplyEncoder.decode(VersionReply.self, from: try await rig.send(#"?VERSION={"id":"v1"};"#)[0])
        #expect(version.id == .string("v1"))
        let pause = try await rig.error(#"?PAUSE={"id":"p"};"#)
        #expect(pause.code == .invalidState && pause.message == "cannot pause: the session is idle")
        #expect(pause.id == .string("p"))
        let missing = try await rig.error(#"?SESSION={"id":42};"#)
        #expect(missing.code == .notFound && missing.message == "no session 42; ?SESSIONS; lists them")
    }

    @Test("?START refuses an activity it does not know, and a course the library does not hold, starting nothing")
    func startRefused() async throws {
        var rig = try Rig()
        // The parser refuses it first on the wire; the router does not take its word for it.
        let swim = try await rig.error(Request(command: .start(activity: "swim"), id: .number(1)))
        #expect(swim.code == .badParameter && swim.message.hasPrefix(#""activity" must be one of run, "#))
        #expect(swim.id == .number(1))
        let course = try await rig.error(#"?START={"course":99};"#)
        #expect(course.code == .notFound && course.message == "no course 99; ?COURSES; lists them")
        #expect(await rig.service.status().state == .idle)
    }

    @Test("?EXPORT streams the session in the format asked for; an unknown format is bad_parameter naming the formats")
    func export() async throws {
        var rig = try Rig()
        let started = try ReplyEncoder.decode(StatusReply.self, from: try await rig.send("?START;")[0])
        _ = try await rig.send("?STOP;")
        let sid = try #require(started.session)
        let lines = await rig.send(Request(command: .export(id: sid, format: "gpx"), id: .string("e")))
        let header = try ReplyEncoder.decode(ExportReply.self, from: lines[0])
        #expect(header.session == sid && header.format == "gpx" && header.id == .string("e"))
        #expect(lines.count == 1 + header.chunks)
        // The parser refuses it first on the wire; the router does not take its word for it.
        let doc = try await rig.error(Request(command: .export(id: sid, format: "doc")))
        #expect(doc.code == .badParameter && doc.message == #""format" must be one of gpx, tcx, fit, geojson, csv, svg"#)
    }

    @Test("?COURSE_ADD opens an upload, its ?COURSE_DATA pieces are acknowledged and the last stores the course")
    func upload() async throws {
        var rig = try Rig()
        let orphan = try await rig.error(#"?COURSE_DATA={"seq":0,"data":"x"};"#)
        #expect(orphan.code == .invalidState, "no upload is open")
        let gpx = String(decoding: CourseServiceTests.gpx, as: UTF8.self)
        let half = gpx.index(gpx.startIndex, offsetBy: gpx.utf8.count / 2)
        let pieces = [String(gpx[..<half]), String(gpx[half...])]
        let opened = try await rig.send(#"?COURSE_ADD={"bytes":\#(gpx.utf8.count),"chunks":2,"encoding":"utf8"};"#)
        #expect(try ReplyEncoder.decode(UploadReply.self, from: opened[0]).received == 0)
        let first = try await rig.send(Request(command: .courseData(seq: 0, data: pieces[0])).line)
        #expect(try ReplyEncoder.decode(UploadReply.self, from: first[0]).received == pieces[0].utf8.count)
        let stored = try await rig.send(Request(command: .courseData(seq: 1, data: pieces[1])).line)
        let course = try ReplyEncoder.decode(CourseReply.self, from: stored[0]).course
        #expect(course.name == "North" && course.points == 201)
        #expect(rig.client.upload == nil)
        let listed = try ReplyEncoder.decode(CoursesReply.self, from: try await rig.send("?COURSES;")[0])
        #expect(listed.courses.map(\.id) == [course.id])
    }

    @Test("?WATCH sends the client every STATUS from then on; ?WATCH={\"enable\":false} stops them")
    func watch() async throws {
        var rig = try Rig()
        _ = try await rig.send(#"?WATCH={"enable":true};"#)
        await rig.service.tick()
        #expect(rig.sink.received.count == 1 && ReplyEncoder.replyClass(of: rig.sink.received[0]) == "STATUS")
        _ = try await rig.send(#"?WATCH={"enable":false};"#)
        await rig.service.tick()
        #expect(rig.sink.received.count == 1)
    }

    @Test("?CONFIG is the effective configuration, answered without the session")
    func config() async throws {
        var rig = try Rig()
        let reply = try ReplyEncoder.decode(ConfigReply.self, from: try await rig.send("?CONFIG;")[0])
        guard case let .object(members) = reply.config else {
            Issue.record("?CONFIG is not an object: \(reply.config)")
            return
        }
        #expect(members["state_dir"] != nil)
    }
}
