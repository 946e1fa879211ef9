import Foundation
import Testing
@testable import MoonRunnerCore

/// When a course's cues are said, fix by fix (progress in metres, speed in
/// m/s, time in seconds: no GPS, no noise).
@Suite("Cue guide: when each cue is said")
struct CueGuideTests {
    static func cue(_ kind: CueKind, at m: Double, offCourse: Bool = false) -> CourseCue {
        CourseCue(kind: kind, courseM: m, latitude: 0, longitude: 0, offCourse: offCourse)
    }

    /// The wearer at `speed` from `from` metres, one update a second to `to`;
    /// what was said, as "ahead 300 @ 64" (kind of phase, the cue's place, the distance rounded).
    static func run(_ cues: [CourseCue], speed: Double, from: Double = 0, to: Double, stop: (at: Double, for: Double)? = nil,
                    guide: CueGuide? = nil) -> [String] {
        var g = guide ?? CueGuide(cues: cues)
        var said: [String] = []
        var p = from, t = 0.0, standing = 0.0
        var stopLeft = stop
        while p <= to {
            let v = standing > 0 ? 0 : speed
            g.update(progress: p, speed: v, at: t) { a in
                said.append("\(a.phase == .ahead ? "ahead" : "now") \(Int(a.cue.courseM)) @ \(Int(a.distance.rounded()))")
            }
            t += 1
            if standing > 0 {
                standing -= 1
            } else if let s = stopLeft, p >= s.at {
                standing = s.for
                stopLeft = nil
            } else {
                p += speed
            }
        }
        return said
    }

    @Test("said about 20 s ahead at the wearer's pace, and again within 3 s (at least 8 m) of the turn")
    func running() {
        #expect(Self.run([Self.cue(.left, at: 500)], speed: 3.2, to: 600) == ["ahead 500 @ 62", "now 500 @ 7"])
        #expect(Self.run([Self.cue(.left, at: 500)], speed: 5, to: 600) == ["ahead 500 @ 100", "now 500 @ 15"])
    }

    @Test("never closer than 30 m: a walker hears it 21 s ahead")
    func walking() {
        #expect(Self.run([Self.cue(.right, at: 300)], speed: 1.4, to: 400) == ["ahead 300 @ 30", "now 300 @ 7"])
    }

    @Test("standing at a crossing before the turn: \"now\" waits until the wearer moves towards it again")
    func standing() {
        let said = Self.run([Self.cue(.left, at: 300)], speed: 1.4, to: 400, stop: (at: 294, for: 30))
        #expect(said == ["ahead 300 @ 30", "now 300 @ 7"])
    }

    @Test("a point of interest is said once, ahead, and never \"now\"")
    func place() {
        #expect(Self.run([Self.cue(.water, at: 400)], speed: 3.2, to: 500) == ["ahead 400 @ 61"])
    }

    @Test("a turn reached less than 15 s after the one before is said with it; one further on after the first turn")
    func following() {
        let close = Self.run([Self.cue(.left, at: 500), Self.cue(.right, at: 540)], speed: 3.2, to: 600)
        #expect(close == ["ahead 500 @ 62", "ahead 540 @ 102", "now 500 @ 7", "now 540 @ 9"])
        let apart = Self.run([Self.cue(.left, at: 500), Self.cue(.right, at: 600)], speed: 3.2, to: 700)
        #expect(apart == ["ahead 500 @ 62", "now 500 @ 7", "ahead 600 @ 62", "now 600 @ 8"])
    }

    @Test("a cue behind the wearer, or on a part skipped (progress jumps past it), is never said; the next one is")
    func skipped() {
        var g = CueGuide(cues: [Self.cue(.left, at: 100), Self.cue(.right, at: 900), Self.cue(.left, at: 1500)])
        var said: [Double] = []
        // Joins at 300 m (past the first), rejoins at 1000 m after a shortcut (past the second).
        for (t, p) in [(0.0, 300.0), (1, 303), (2, 306), (200, 1000), (201, 1003)] {
            g.update(progress: p, speed: 3, at: t) { said.append($0.cue.courseM) }
        }
        #expect(said.isEmpty)
        #expect(g.upcoming(progress: 1003).map { $0.cue.courseM } == 1500)
        #expect(g.upcoming(progress: 1003).map { $0.distance } == 497)
    }

    @Test("a point of interest off the course is never said")
    func offCourse() {
        #expect(Self.run([Self.cue(.water, at: 400, offCourse: true)], speed: 3.2, to: 500).isEmpty)
    }

    @Test("carried across a restart, a cue already passed is not said again")
    func restored() {
        let cues = [Self.cue(.left, at: 100), Self.cue(.right, at: 400)]
        let g = CueGuide(cues: cues, next: 1)
        #expect(Self.run(cues, speed: 3, from: 90, to: 500, guide: g) == ["ahead 400 @ 58", "now 400 @ 7"])
    }
}
