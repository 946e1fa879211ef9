import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerProtocol

@Suite("Protocol: courses")
struct CourseProtocolTests {
    @Test("the course requests parse", arguments: [
        ("?COURSES;", Request.Command.courses),
        ("?COURSE={\"id\":3};", .course(id: 3)),
        ("?COURSE_DELETE={\"id\":3};", .courseDelete(id: 3)),
        ("?course_data={\"seq\":0,\"data\":\"QUJD\"};", .courseData(seq: 0, data: "QUJD")),
        ("?COURSE_ADD={\"name\":\"Ridge\",\"format\":\"GPX\",\"bytes\":10,\"chunks\":2};",
         .courseAdd(UploadHeader(kind: .course, name: "Ridge", format: "gpx", encoding: "base64", bytes: 10, chunks: 2))),
        ("?COURSE_ADD={\"encoding\":\"utf8\",\"bytes\":1,\"chunks\":1};",
         .courseAdd(UploadHeader(kind: .course, name: nil, format: nil, encoding: "utf8", bytes: 1, chunks: 1))),
        ("?START={\"activity\":\"walk\",\"course\":7};", .start(activity: "walk", course: 7)),
        ("?START={\"to\":[51.5007,-0.1246]};", .start(activity: nil, destination: GeoPoint(latitude: 51.5007, longitude: -0.1246))),
    ])
    func parses(line: String, command: Request.Command) throws {
        #expect(try RequestParser.parse(line).command == command)
        #expect(try RequestParser.parse(Request(command: command).line).command == command)
    }

    @Test("bad course requests are refused with a code", arguments: [
        ("?COURSE;", RequestError.Code.badParameter),
        ("?COURSE_DELETE={\"id\":0};", .badParameter),
        ("?COURSE_ADD={\"bytes\":10};", .badParameter),
        ("?COURSE_ADD={\"bytes\":10,\"chunks\":11};", .badParameter),
        ("?COURSE_ADD={\"bytes\":0,\"chunks\":1};", .badParameter),
        ("?COURSE_ADD={\"bytes\":10,\"chunks\":1,\"format\":\"kml\"};", .badParameter),
        ("?COURSE_ADD={\"bytes\":10,\"chunks\":1,\"encoding\":\"hex\"};", .badParameter),
        ("?COURSE_ADD={\"bytes\":10,\"chunks\":1,\"path\":\"/etc/passwd\"};", .badParameter),
        ("?COURSE_DATA={\"seq\":0};", .badParameter),
        ("?COURSE_DATA={\"seq\":-1,\"data\":\"\"};", .badParameter),
        ("?START={\"to\":[91,0]};", .badParameter),
        ("?START={\"to\":\"51,0\"};", .badParameter),
        ("?START={\"course\":\"x\"};", .badParameter),
        ("?_COURSE;", .syntax),
    ])
    func errors(line: String, code: RequestError.Code) {
        do {
            _ = try RequestParser.parse(line)
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.code == code, "\(line): \(error)")
        }
    }

    @Test("uploads and deletes change state; listing does not")
    func privileges() {
        #expect(Request.Command.courseAdd(UploadHeader(kind: .course, name: nil, format: nil, encoding: "base64", bytes: 1, chunks: 1)).changesState)
        #expect(Request.Command.courseData(seq: 0, data: "").changesState && Request.Command.courseDelete(id: 1).changesState)
        #expect(!Request.Command.courses.changesState && !Request.Command.course(id: 1).changesState)
    }

    @Test("an upload's lines fit the 4096-byte limit and reassemble to the file")
    func uploadRoundTrip() throws {
        var rng = SystemRandomNumberGenerator()
        let file = Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let lines = FileUpload.lines(for: file, kind: .course, name: "x \"quoted\"", format: "fit")
        #expect(lines.allSatisfy { $0.utf8.count < 4000 })
        guard case let .courseAdd(header) = try RequestParser.parse(lines[0]).command else {
            Issue.record("the first line is not ?COURSE_ADD")
            return
        }
        #expect(header.bytes == file.count && header.chunks == lines.count - 1 && header.name == "x \"quoted\"")
        var upload = FileUpload(header)
        for line in lines.dropFirst() {
            guard case let .courseData(seq, data) = try RequestParser.parse(line).command else { continue }
            try upload.accept(seq: seq, data: data)
        }
        #expect(upload.isComplete && upload.data == file)
    }

    @Test("an upload refuses pieces out of order, not decoding, or beyond the announced size")
    func uploadErrors() {
        let h = UploadHeader(kind: .course, name: nil, format: nil, encoding: "base64", bytes: 6, chunks: 2)
        var a = FileUpload(h)
        #expect(throws: RequestError.self) { try a.accept(seq: 1, data: "QUJD") }
        var b = FileUpload(h)
        #expect(throws: RequestError.self) { try b.accept(seq: 0, data: "not base64!") }
        var c = FileUpload(h)
        #expect(throws: RequestError.self) { try c.accept(seq: 0, data: "QUJDREVGRw==") }   // 7 bytes > 6
        var d = FileUpload(h)
        #expect(throws: RequestError.self) {
            try d.accept(seq: 0, data: "QUJD")
            try d.accept(seq: 1, data: "QQ==")   // 4 of 6 bytes when the last piece came
        }
        var text = FileUpload(UploadHeader(kind: .course, name: nil, format: "gpx", encoding: "utf8", bytes: 4, chunks: 1))
        #expect(throws: Never.self) { try text.accept(seq: 0, data: "<gé") }
        #expect(text.isComplete && text.data == Data("<gé".utf8))
    }

    @Test("STATUS carries course, home and destination, null when there are none")
    func status() throws {
        let idle = StatusReply(time: 1, state: .idle, session: nil, stats: nil,
                               gps: GPSStatus(health: .ok, grade: .best, fixes: 0, connects: 1),
                               imu: IMUStatus(health: .ok, samples: 0, rejected: 0, busErrors: 0, overflows: 0),
                               store: StoreStatus(health: .ok, pending: 0, lastError: nil), lastTransition: nil, units: .metric)
        let line = ReplyEncoder.line(idle)
        #expect(line.contains("\"course\":null") && line.contains("\"home\":null") && line.contains("\"destination\":null"))
        var moving = idle
        moving.course = CourseStatusReply(CourseStatus(id: 2, name: "r", length: 3000, progress: nil, toGo: nil, eta: nil,
                                                       distanceToCourse: 62, onCourse: false, bearingToCourse: 214,
                                                       finished: false))
        let text = ReplyEncoder.line(moving)
        #expect(text.contains(#""course":{"bearing_to_course_deg":214,"distance_to_course_m":62,"eta_s":null,"finished":false,"id":2,"length_m":3000,"name":"r","next_cue":null,"on_course":false,"progress_m":null,"to_go_m":null}"#), "\(text)")
        #expect(try ReplyEncoder.decode(StatusReply.self, from: text) == moving)
    }

    @Test("STATUS.course.next_cue says the next cue's kind, name, place and distance; an EVENT carries its cue only for turn_ahead and turn_now")
    func cues() throws {
        let cue = CourseCue(kind: .left, name: "Elm Street", courseM: 1200, latitude: 47, longitude: 8, then: [.right])
        let course = CourseStatusReply(CourseStatus(id: 2, name: "r", length: 3000, progress: 1100, toGo: 1900, eta: 600,
                                                    distanceToCourse: 3, onCourse: true, bearingToCourse: nil,
                                                    finished: false, nextCue: (cue, 100)))
        let line = ReplyEncoder.line(course)
        #expect(line.contains(#""next_cue":{"course_m":1200,"distance_m":100,"kind":"left","name":"Elm Street","then":["right"]}"#), "\(line)")
        let ahead = SessionEvent(kind: .turnAhead, time: 5, detectedAt: 5, cause: "course", state: .recording,
                                 detail: "left", cue: CueEvent(kind: .left, name: nil, courseM: 1200, distanceM: 64))
        let event = ReplyEncoder.line(EventReply(session: 1, event: ahead))
        #expect(event.contains(#""cue":{"course_m":1200,"distance_m":64,"kind":"left","name":null,"then":[]}"#), "\(event)")
        #expect(try ReplyEncoder.decode(EventReply.self, from: event).cue == ahead.cue)
        let lap = ReplyEncoder.line(EventReply(session: 1, event: SessionEvent(kind: .lap, time: 5, detectedAt: 5,
                                                                              cause: "command", state: .recording)))
        #expect(!lap.contains("cue"), "\(lap)")
    }
}
