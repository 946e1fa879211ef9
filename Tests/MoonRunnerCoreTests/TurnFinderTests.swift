import Foundation
import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

/// A course with no cues of its own is cued from its shape:
/// 40° or more between the 20 m before a point and the 20 m after it.
@Suite("Turns found in a course's shape")
struct TurnFinderTests {
    /// 300 m east, a turn of `degrees` (positive: right), 300 m on: vertices every 10 m.
    static func cues(turning degrees: Double) throws -> [CourseCue] {
        let a = -degrees * .pi / 180
        let corners = [(0.0, 0.0), (300.0, 0.0), (300 + 300 * cos(a), 300 * sin(a))]
        return TurnFinder.cues(in: try CourseSketch.geometry(corners))
    }

    @Test("the direction word comes from the angle: slight 40–60°, a turn 60–120°, sharp 120–170°, a U-turn beyond; under 40° nothing",
          arguments: [(20.0, nil), (35, nil), (45, CueKind.slightRight), (-55, .slightLeft), (70, .right), (-90, .left),
                      (115, .right), (-125, .sharpLeft), (165, .sharpRight), (-175, .uTurn), (180, .uTurn)] as [(Double, CueKind?)])
    func words(degrees: Double, kind: CueKind?) throws {
        let cues = try Self.cues(turning: degrees)
        #expect(cues.map(\.kind) == (kind.map { [$0] } ?? []), "\(degrees)°: \(cues.map(\.kind))")
        // Where the corner is, within the 10 m of the drawing.
        for c in cues { #expect(abs(c.courseM - 300) <= 10, "at \(c.courseM) m") }
        #expect(cues.allSatisfy { $0.found && $0.then.isEmpty && $0.name == nil })
    }

    @Test("a bend of 30 m radius or more is no turn, however far it turns", arguments: [30.0, 36.5, 60, 200])
    func bends(radius: Double) throws {
        // 300 m east, a 180° bend to the left, 300 m back west: a running track's end at 36.5 m.
        var corners = [(0.0, 0.0), (300.0, 0.0)]
        for k in 1...36 {
            let phi = Double(k) * .pi / 36
            corners.append((300 + radius * sin(phi), radius - radius * cos(phi)))
        }
        corners.append((0, 2 * radius))
        #expect(TurnFinder.cues(in: try CourseSketch.geometry(corners, spacing: 5)).isEmpty)
    }

    @Test("a running track's laps have no turn at all")
    func track() throws {
        #expect(TurnFinder.cues(in: try CourseSketch.geometry(CourseSketch.track(laps: 3))).isEmpty)
    }

    @Test("turns closer than 30 m are one cue: left then right 10 and 25 m apart; 40 m apart they are two")
    func together() throws {
        for (gap, expected) in [(10.0, [CueKind.left]), (25, [.left]), (40, [.left, .right])] {
            let corners = [(0.0, 0.0), (300.0, 0.0), (300.0, gap), (600.0, gap)]
            let cues = TurnFinder.cues(in: try CourseSketch.geometry(corners, spacing: 5))
            #expect(cues.map(\.kind) == expected, "\(gap) m: \(cues.map(\.kind))")
            if gap < 30 { #expect(cues.first?.then == [.right], "\(gap) m: then \(cues.first?.then ?? [])") }
        }
    }

    @Test("two turns the same way within the 20 m windows are one turn of their sum: a U-turn round a block's end")
    func hairpin() throws {
        let corners = [(0.0, 0.0), (300.0, 0.0), (300.0, 15.0), (0.0, 15.0)]
        let cues = TurnFinder.cues(in: try CourseSketch.geometry(corners, spacing: 5))
        #expect(cues.map(\.kind) == [.uTurn])
        #expect(abs((cues.first?.courseM ?? 0) - 307.5) <= 10)
    }

    @Test("a planner's line wandering 3 m either side of a straight street (and half a metre vertex to vertex) gives no turn")
    func wander() throws {
        var rng = GPSTestRandom(seed: 29)
        // Typed step by step: Swift 6.2's type checker gives up on the one expression.
        let corners = (0...100).map { (k: Int) -> (Double, Double) in
            let x = Double(k) * 10
            let y: Double = 3 * sin(x * 2 * .pi / 100) + 0.5 * rng.gaussian()
            return (x, y)
        }
        #expect(TurnFinder.cues(in: try CourseSketch.geometry(corners, spacing: 10)).isEmpty)
    }

    @Test("a turn within 20 m of either end cannot be measured and is not found; a course shorter than 40 m has none")
    func ends() throws {
        #expect(TurnFinder.cues(in: try CourseSketch.geometry([(0, 0), (10, 0), (10, 300)])).isEmpty)
        #expect(TurnFinder.cues(in: try CourseSketch.geometry([(0, 0), (15, 0), (15, 15)])).isEmpty)
    }
}
