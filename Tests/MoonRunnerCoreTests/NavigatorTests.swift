import Foundation
import Testing
@testable import MoonRunnerCore

@Suite("Navigator")
struct NavigatorTests {
    struct Recorded: Equatable {
        var kind: SessionEventKind
        var detail: String?
    }

    /// Walks `path` (metres) at 3 m/s through a navigator; returns its events.
    static func walk(_ nav: inout Navigator, _ path: [(Double, Double)], from t0: Double = 0) -> [Recorded] {
        var events: [Recorded] = []
        let fixes = SimulatedRun(path: CourseSketch.vertices(path), speed: 3, noise: 2, seed: 5).fixes()
        var distance = 0.0
        for f in fixes {
            let ll = CourseSketch.plane.unproject(east: f.east, north: f.north)
            nav.update(latitude: ll.lat, longitude: ll.lon, sigma: 2, speed: f.speed, heading: f.heading,
                       distance: distance, at: t0 + f.t) { events.append(Recorded(kind: $0.kind, detail: $0.detail)) }
            distance = f.along
        }
        return events
    }

    @Test("to-go alerts once each, then course_finished once, on a 2.5 km course")
    func alerts() throws {
        let corners = [(0.0, 0.0), (2500.0, 0.0)]
        let course = FollowedCourse(id: 7, name: "river", geometry: try CourseSketch.geometry(corners))
        var nav = Navigator(course: course, destination: nil)
        let events = Self.walk(&nav, corners + [(2600, 0)])
        #expect(events == [Recorded(kind: .courseToGo, detail: "1000"), Recorded(kind: .courseToGo, detail: "500"),
                           Recorded(kind: .courseFinished, detail: "river")])
        let status = try #require(nav.courseStatus(averageSpeed: 3))
        #expect(status.finished)
    }

    @Test("a course shorter than an alert distance does not announce it at the start")
    func shortCourse() throws {
        let corners = [(0.0, 0.0), (800.0, 0.0)]
        var nav = Navigator(course: FollowedCourse(id: nil, name: "short", geometry: try CourseSketch.geometry(corners)),
                            destination: nil)
        #expect(Self.walk(&nav, corners).map(\.kind) == [.courseToGo, .courseFinished])
    }

    @Test("a destination: arrived once within the radius; home stays at the start")
    func destination() throws {
        let target = CourseSketch.plane.unproject(east: 1000, north: 500)
        var nav = Navigator(course: nil, destination: GeoPoint(latitude: target.lat, longitude: target.lon))
        let events = Self.walk(&nav, [(0, 0), (1000, 500), (1100, 500)])
        #expect(events.map(\.kind) == [.arrived])
        let home = try #require(nav.toHome)
        #expect(abs(home.distance - 1100 * 1.0 - 0) < 40 || abs(home.distance - hypot(1100, 500)) < 20, "\(home)")
        #expect(abs(home.bearing - (atan2(-1100, -500) * 180 / .pi + 360)) < 3, "\(home.bearing)")
        let dest = try #require(nav.toDestination)
        #expect(dest.distance < 130 && dest.distance > 70)
    }

    @Test("a snapshot carries course progress and alerts across a restart")
    func snapshot() throws {
        let corners = [(0.0, 0.0), (2500.0, 0.0)]
        let course = FollowedCourse(id: 3, name: "river", geometry: try CourseSketch.geometry(corners))
        var nav = Navigator(course: course, destination: nil)
        _ = Self.walk(&nav, [(0, 0), (1600, 0)])
        let data = try JSONEncoder().encode(nav.snapshot)
        let back = try JSONDecoder().decode(NavigationSnapshot.self, from: data)
        #expect(back == nav.snapshot && back.courseID == 3 && back.phase == .on)
        var resumed = Navigator(restoring: back, course: course)
        // The 1000 m alert was given before the restart; only 500 m and the finish remain.
        let events = Self.walk(&resumed, [(1600, 0), (2600, 0)], from: 600)
        #expect(events.map(\.kind) == [.courseToGo, .courseFinished] && events.first?.detail == "500")
    }
}

@Suite("Session engine: navigation")
struct EngineNavigationTests {
    /// GPS fixes along `path` (metres), with Doppler speed and course, from engine time `t0`.
    static func fixes(_ path: [(Double, Double)], t0: Double) -> [GPSFix] {
        SimulatedRun(path: CourseSketch.vertices(path), speed: 3, noise: 2, seed: 3).fixes().map { f in
            let ll = CourseSketch.plane.unproject(east: f.east, north: f.north)
            return GPSFix(time: t0 + f.t, mode: 3, latitude: ll.lat, longitude: ll.lon, altitude: 400, eph: 8,
                          speed: f.speed, track: f.heading, stdLat: 2, stdLon: 2)
        }
    }

    @Test("a session following a course emits the course events and keeps the course in its snapshot")
    func followsCourse() throws {
        let corners = [(0.0, 0.0), (1500.0, 0.0)]
        let course = FollowedCourse(id: 4, name: "quay", geometry: try CourseSketch.geometry(corners))
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .run, at: 1000, course: course, emit: emit) }
        for f in Self.fixes(corners + [(1520, 0)], t0: 1000) { run.fix(f) }
        let kinds = run.events.map(\.kind)
        #expect(kinds.filter(\.isNavigation) == [.courseToGo, .courseToGo, .courseFinished], "\(kinds)")
        #expect(run.events.filter(\.kind.isNavigation).allSatisfy { $0.cause == "course" && $0.state == .recording })
        let snap = run.engine.snapshot
        #expect(snap.navigation?.courseID == 4 && snap.navigation?.courseName == "quay" && snap.navigation?.finished == true)
        let home = try #require(run.engine.navigator?.toHome)
        #expect(abs(home.distance - 1520) < 30)

        // A restart carries on with the same course and its finished state.
        var restored = SessionEngine()
        restored.restore(snap, course: course, at: 3000) { _ in }
        #expect(restored.navigator?.course?.name == "quay" && restored.navigator?.finished == true)
        #expect(restored.snapshot.navigation?.home == snap.navigation?.home)
    }

    @Test("a snapshot written before courses existed still reads, without navigation")
    func oldSnapshot() throws {
        let json = #"{"state":"recording","stats":{"activity":"run","elapsed_s":5},"pauses":[],"last_time":12}"#
        let snap = try JSONDecoder().decode(SessionSnapshot.self, from: Data(json.utf8))
        #expect(snap.navigation == nil)
        var engine = SessionEngine()
        engine.restore(snap, at: 20) { _ in }
        #expect(engine.navigator != nil && engine.navigator?.course == nil)
    }
}

@Suite("Navigation snapshot in UTC")
struct NavigationTimeShiftTests {
    @Test("shifting a snapshot to UTC keeps the course it followed")
    func keepsCourse() {
        let nav = NavigationSnapshot(courseID: 2, courseName: "Ridge", courseLength: 3000, phase: .on, progress: 10,
                                     progressTime: 100)
        let snap = SessionSnapshot(state: .recording, stats: SessionStats(), pauses: [], lastTime: 100, utcOffset: 50,
                                   navigation: nav)
        let utc = snap.shifted(by: 50)
        #expect(utc.navigation?.courseName == "Ridge" && utc.navigation?.courseID == 2)
        #expect(utc.navigation?.progressTime == 150 && utc.lastTime == 150)
    }
}
