import Foundation
import Testing
@testable import MoonRunnerCore

@Suite("Course matcher")
struct CourseMatcherTests {
    @Test("laps of a track: never a lap off, through a 90 s stop and a 40 s loss of fix",
          arguments: [UInt64(1), 2, 3])
    func laps(seed: UInt64) throws {
        let path = CourseSketch.track(laps: 10)
        let geometry = try CourseSketch.geometry(path)
        var run = SimulatedRun(path: CourseSketch.vertices(path), speed: 3.5, noise: 4, seed: seed)
        run.stops = [(1000, 90)]
        run.gaps = [(700, 740)]
        let m = MatchedRun(run, on: geometry)
        #expect(m.worstError() < 25, "worst progress error \(m.worstError()) m")
        #expect(m.transitions.isEmpty)
        #expect(try #require(m.matches.last?.progress) > geometry.length - 20)
    }

    @Test("out and back on one street: never the other leg, even with the fix lost at the turn")
    func outAndBack() throws {
        // Out 1 km east, back 4 m further north: the legs lie side by side.
        let corners = [(0.0, 0.0), (1000.0, 0.0), (1000.0, 4.0), (0.0, 4.0)]
        let geometry = try CourseSketch.geometry(corners)
        var run = SimulatedRun(path: CourseSketch.vertices(corners), speed: 3, noise: 4)
        run.gaps = [(323, 348)]  // 25 s around the turn at ~333 s
        let m = MatchedRun(run, on: geometry)
        #expect(m.worstError() < 30, "worst progress error \(m.worstError()) m")
        #expect(m.transitions.isEmpty)
    }

    @Test("a figure of eight crossing itself is followed through the crossing")
    func figureEight() throws {
        var corners: [(Double, Double)] = []
        for k in 0...64 {
            let a = Double(k) / 64 * 2 * Double.pi
            corners.append((300 * sin(a), 150 * sin(2 * a)))  // a lemniscate-like eight crossing at the origin
        }
        let geometry = try CourseSketch.geometry(corners)
        let m = MatchedRun(SimulatedRun(path: CourseSketch.vertices(corners), speed: 3, noise: 4), on: geometry)
        #expect(m.worstError() < 25, "worst progress error \(m.worstError()) m")
        #expect(m.transitions.isEmpty)
    }

    @Test("leaving the course and rejoining further on: one alert each, picked up where they rejoin")
    func shortcut() throws {
        // The course makes a 200 m loop north; the runner cuts straight across its 200 m base.
        let course = [(0.0, 0.0), (500.0, 0.0), (500.0, 200.0), (700.0, 200.0), (700.0, 0.0), (1200.0, 0.0)]
        let geometry = try CourseSketch.geometry(course)
        let path = CourseSketch.vertices([(0, 0), (1200, 0)])
        let m = MatchedRun(SimulatedRun(path: path, speed: 3, noise: 3), on: geometry)
        #expect(m.offCourseAlerts == 1 && m.onCourseAlerts == 1, "\(m.transitions)")
        // On the course again past the loop, progress is the runner's plus the 400 m they skipped.
        #expect(m.worstError(settle: 300, offset: { $0 + 400 }) < 25)
        #expect(try #require(m.matches.last?.progress) > geometry.length - 20)
    }

    /// Onto a street exactly 50 m (the threshold) from the course for 10 minutes, then back.
    static let alongThreshold = CourseSketch.vertices([(0, 0), (100, 0), (130, 50), (2700, 50), (2730, 0), (3000, 0)])

    @Test("scatter at the threshold does not flap")
    func noFlapping() throws {
        let geometry = try CourseSketch.geometry([(0, 0), (3000, 0)])
        for seed in UInt64(1)...6 {
            let run = SimulatedRun(path: Self.alongThreshold, speed: 4, noise: 4, correlation: 2, seed: seed)
            let m = MatchedRun(run, on: geometry)
            #expect(m.transitions.count <= 2, "seed \(seed): \(m.transitions)")
        }
    }

    @Test("an error wandering across the threshold changes the verdict at most every 30 s")
    func slowWander() throws {
        let geometry = try CourseSketch.geometry([(0, 0), (3000, 0)])
        for seed in UInt64(1)...6 {
            let run = SimulatedRun(path: Self.alongThreshold, speed: 4, noise: 4, correlation: 30, seed: seed)
            let times = MatchedRun(run, on: geometry).transitions.map { t -> Double in
                switch t { case let .offCourse(s), let .onCourse(s): s }
            }
            for (a, b) in zip(times, times.dropFirst()) { #expect(b - a >= 30, "seed \(seed): \(times)") }
        }
    }

    @Test("a multipath burst of three fixes 80 m off is no alert")
    func burst() throws {
        let geometry = try CourseSketch.geometry([(0, 0), (2000, 0)])
        var run = SimulatedRun(path: CourseSketch.vertices([(0, 0), (2000, 0)]), speed: 3, noise: 3)
        run.bursts = [(200, 203, 80), (400, 402, -90)]
        let m = MatchedRun(run, on: geometry)
        #expect(m.transitions.isEmpty)
    }

    @Test("an underpass without fixes is no alert, even when the last fixes before it strayed")
    func underpass() throws {
        let geometry = try CourseSketch.geometry([(0, 0), (2000, 0)])
        var run = SimulatedRun(path: CourseSketch.vertices([(0, 0), (2000, 0)]), speed: 3, noise: 3)
        run.bursts = [(298, 300, 70)]
        run.gaps = [(300, 330)]
        let m = MatchedRun(run, on: geometry)
        #expect(m.transitions.isEmpty)
        #expect(m.worstError(settle: 335) < 20)
    }

    @Test("starting away from the course: on_course when joining it, no off_course alert")
    func startAway() throws {
        let geometry = try CourseSketch.geometry([(0, 0), (2000, 0)])
        let path = CourseSketch.vertices([(400, -300), (400, 0), (2000, 0)])
        let m = MatchedRun(SimulatedRun(path: path, speed: 3, noise: 3), on: geometry)
        #expect(m.transitions.count == 1 && m.onCourseAlerts == 1, "\(m.transitions)")
        #expect(m.worstError(settle: 150, offset: { $0 - 300 + 400 }) < 20)
    }

    @Test("crossing the course is being on it while within the threshold and off it again once past, once; where along it is never taken")
    func crossing() throws {
        let geometry = try CourseSketch.geometry([(0, 0), (2000, 0)])
        let path = CourseSketch.vertices([(1000, -400), (1000, 400)])
        let m = MatchedRun(SimulatedRun(path: path, speed: 3, noise: 3), on: geometry)
        #expect(m.onCourseAlerts == 1 && m.offCourseAlerts == 1, "\(m.transitions)")
        #expect(m.matches.allSatisfy { $0.progress == nil })
        // Within 50 m from 350 m to 450 m of the path: on course 3 s after 117 s, off 5 s after 55 m beyond it (152 s).
        let on = try #require(m.onCourseTimes.first)
        #expect(abs(on.detected - 120) <= 5, "on_course at \(on.detected) s")
    }

    @Test("running the course backwards is never following it: on it, but no progress")
    func backwards() throws {
        let corners = [(0.0, 0.0), (2000.0, 0.0)]
        let geometry = try CourseSketch.geometry(corners)
        let m = MatchedRun(SimulatedRun(path: CourseSketch.vertices(corners.reversed()), speed: 3, noise: 3), on: geometry)
        #expect(m.matches.suffix(600).allSatisfy { $0.progress == nil })
    }

    @Test("progress never moves by more than the runner can cover, or back by more than the noise")
    func bounded() throws {
        let path = CourseSketch.track(laps: 5)
        let geometry = try CourseSketch.geometry(path)
        let m = MatchedRun(SimulatedRun(path: CourseSketch.vertices(path), speed: 4, noise: 5, seed: 9), on: geometry)
        var last: (Double, Double)?
        for match in m.matches {
            guard let p = match.progress else { continue }
            if let (t, q) = last {
                #expect(p - q <= CourseMatcherConfig().maxSpeed * (match.time - t) + 3 * 5 + 0.001)
                #expect(q - p <= 3 * 5 + 0.001)
            }
            last = (match.time, p)
        }
    }

    @Test("a restored matcher carries on from its progress")
    func restore() throws {
        let geometry = try CourseSketch.geometry(CourseSketch.track(laps: 3))
        var m = CourseMatcher(geometry: geometry, config: .init(), phase: .on, progress: 795, progressTime: 100)
        // At the start line again, 2.5 s later: lap 3's start (800 m), not lap 1's.
        let ll = CourseSketch.plane.unproject(east: 5, north: 0)
        let (match, _) = m.update(latitude: ll.lat, longitude: ll.lon, sigma: 3, speed: 3, heading: 90, at: 102.5)
        #expect(try abs(#require(match.progress) - 805) < 10)
    }
}
