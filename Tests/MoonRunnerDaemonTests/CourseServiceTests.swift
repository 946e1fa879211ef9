import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore
import Testing
@testable import MoonRunnerDaemon

@Suite("Session service: courses (real store, no sockets)")
struct CourseServiceTests {
    /// A 2 km course due north of the fixes' start, as a GPX track.
    static let gpx: Data = {
        var text = #"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>North</name><trkseg>"#
        for k in 0...200 { text += #"<trkpt lat="\#(48.0 + Double(k) * 10 / 111_200)" lon="11.00002"/>"# }
        return Data((text + "</trkseg></trk></gpx>").utf8)
    }()

    @Test("a course added to the library is followed, survives a restart of the service, and its events reach watchers")
    func followAcrossRestart() async throws {
        let (service, store) = try SessionServiceTests.service()
        let header = UploadHeader(kind: .course, name: nil, format: "gpx", encoding: "utf8", bytes: Self.gpx.count, chunks: 1)
        let course = try await service.library.add(Self.gpx, header: header)
        #expect(course.name == "North" && abs(course.lengthM - 2000) < 10 && course.points == 201)
        let list = try await service.library.courses()
        #expect(list.courses.map(\.id) == [course.id])
        await #expect(throws: RequestError(.notFound, "no course 99; ?COURSES; lists them")) {
            try await service.library.load(id: 99)
        }

        let started = try await service.start(.run, course: try await service.library.load(id: course.id),
                                              destination: nil)
        let t0 = started.time
        for k in 0..<300 {
            await service.ingest(fix: SessionServiceTests.fix(t0 + Double(k), metres: Double(k) * 3), at: t0 + Double(k))
        }
        let live = await service.status()
        let c = try #require(live.course)
        #expect(c.onCourse && abs((c.progressM ?? 0) - 897) < 15 && c.bearingToCourseDeg == nil)
        #expect(abs((c.toGoM ?? 0) + (c.progressM ?? 0) - c.lengthM) < 0.01 && (c.etaS ?? 0) > 300)
        let home = try #require(live.home)
        #expect(abs(home.distanceM - 897) < 20 && abs(home.bearingDeg - 180) < 2)
        await service.shutdown()

        // A new service on the same store resumes the open session, still following the course.
        let restarted = SessionService(config: DaemonConfig(stateDir: store), store: store, clock: EngineClock(),
                                       logger: Logger(label: "test"))
        await restarted.recover()
        let sink = WatcherSink()
        restarted.watchers.add(1) { sink.receive($0) }
        for k in 300..<640 {
            await restarted.ingest(fix: SessionServiceTests.fix(t0 + Double(k), metres: Double(k) * 3), at: t0 + Double(k))
        }
        let after = await restarted.status()
        #expect(after.course?.id == course.id && abs((after.course?.progressM ?? 0) - 1917) < 15)
        let events = sink.received.compactMap { try? ReplyEncoder.decode(EventReply.self, from: $0) }
        #expect(events.map(\.event).filter { $0.hasPrefix("course") } == ["course_to_go", "course_to_go"], "\(events.map(\.event))")
        // Navigation events are not state changes.
        let last = try #require(after.lastTransition?.event)
        #expect(["resume", "autopause", "autoresume"].contains(last), "\(last)")
        _ = try await restarted.run(.stop)
        let session = try await SessionServiceTests.archive(restarted, store).session(try #require(started.session))
        #expect(session.course?.name == "North" && session.course?.id == course.id)
    }
}

extension DaemonConfig {
    /// The defaults, with the state directory of `store`.
    init(stateDir store: SessionStore) {
        self.init()
        stateDir = (store.path as NSString).deletingLastPathComponent
    }
}
