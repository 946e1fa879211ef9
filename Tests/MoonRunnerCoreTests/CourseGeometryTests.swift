import Foundation
import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

@Suite("Course geometry")
struct CourseGeometryTests {
    @Test("what cannot be followed is refused, saying why", arguments: [
        ([CoursePoint](), "no track or route points"),
        ([CoursePoint(latitude: 47, longitude: 8)], "at least two distinct points"),
        ([CoursePoint(latitude: 47, longitude: 8), CoursePoint(latitude: 47, longitude: 8)], "at least two distinct points"),
        ([CoursePoint(latitude: 47, longitude: 8), CoursePoint(latitude: 0, longitude: 0)], "0,0"),
        ([CoursePoint(latitude: 47, longitude: 8), CoursePoint(latitude: .nan, longitude: 8)], "no valid position"),
        ([CoursePoint(latitude: 95, longitude: 8), CoursePoint(latitude: 47, longitude: 8)], "no valid position"),
        ([CoursePoint(latitude: 0.5, longitude: 8), CoursePoint(latitude: 47, longitude: 8)], "at most 1000 km"),
    ])
    func refused(points: [CoursePoint], reason: String) {
        do {
            _ = try CourseGeometry(points)
            Issue.record("accepted \(points)")
        } catch {
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test("length, climb with hysteresis, bounds")
    func summary() throws {
        var points = CourseSketch.points(CourseSketch.vertices([(0, 0), (1000, 0)], spacing: 100))
        // Up 20 m in steps, with 0.3 m terrain-model jitter that must not count, then down 5 m.
        for i in points.indices { points[i].elevation = 100 + Double(min(i, 8)) * 2.5 + (i % 2 == 0 ? 0.3 : 0) }
        points[points.count - 1].elevation = 115
        let s = CourseSummary(points)
        #expect(abs(s.length - 1000) < 5)  // great circle on the mean sphere against the ellipsoid's plane
        #expect(abs(s.climb - 20) < 1.5, "climb \(s.climb)")
        #expect(abs(s.descent - 5) < 1.5, "descent \(s.descent)")
        #expect(s.minLatitude <= s.maxLatitude && s.minLongitude < s.maxLongitude && s.points == 11)
        let g = try CourseGeometry(points)
        #expect(abs(g.length - s.length) < 1e-6)
        let end = g.position(atProgress: g.length)
        #expect(abs(end.latitude - points[10].latitude) < 1e-9 && abs(end.longitude - points[10].longitude) < 1e-9)
    }

    @Test("the grid finds the same nearest point as walking every segment", arguments: [UInt64(1), 2, 3])
    func gridNearest(seed: UInt64) throws {
        // Ten laps of a wiggly 2 km loop: every place has ten passes.
        var corners: [(Double, Double)] = []
        for k in 0...2000 {
            let a = Double(k) / 200 * 2 * Double.pi
            corners.append((300 * cos(a) + 30 * sin(7 * a), 200 * sin(a)))
        }
        let g = try CourseSketch.geometry(corners, spacing: 12)
        var rng = GPSTestRandom(seed: seed)
        for _ in 0..<300 {
            let x = rng.gaussian() * 400, y = rng.gaussian() * 300
            let lo = Double.random(in: -100..<g.length, using: &rng)
            let hi = lo + Double.random(in: 0..<g.length, using: &rng)
            let fast = g.nearest(east: x, north: y, from: lo, to: hi)
            var best = Double.infinity
            for i in g.segments(from: lo, to: hi) { best = min(best, g.project(x, y, onSegment: i, lower: lo, upper: hi).distance) }
            #expect(abs(fast.distance - best) < 1e-9)
            #expect(fast.progress >= max(0, lo) - 1e-9 && fast.progress <= min(g.length, hi) + 1e-9)
        }
    }

    @Test("passes: one per lap, in course order, each at its nearest point")
    func passes() throws {
        let g = try CourseSketch.geometry(CourseSketch.track(laps: 4))
        let lap = g.length / 4
        // 3 m beside the home straight, 50 m after the start line.
        let ll = CourseSketch.plane.unproject(east: 50, north: 3)
        let (x, y) = g.project(latitude: ll.lat, longitude: ll.lon)
        var scratch: [Int32] = []
        var out: [CourseProjection] = []
        g.passes(east: x, north: y, within: 20, from: 0, to: g.length, scratch: &scratch, into: &out)
        #expect(out.count == 4)
        for (k, p) in out.enumerated() {
            #expect(abs(p.progress - (Double(k) * lap + 50)) < 1, "\(out.map(\.progress))")
            #expect(abs(p.distance - 3) < 0.5)
        }
        // A window holding only the third lap.
        g.passes(east: x, north: y, within: 20, from: 2 * lap + 20, to: 3 * lap - 10, scratch: &scratch, into: &out)
        #expect(out.count == 1 && abs((out.first?.progress ?? 0) - (2 * lap + 50)) < 1)
    }

    @Test("a pass goes one way: by an out-and-back's turn the two legs are two passes, each at its nearest point")
    func turnBack() throws {
        // Out 1 km east along y = 0, back along y = −8, a vertex every 10 m.
        let g = try CourseSketch.geometry([(0, 0), (1000, 0), (1000, -8), (0, -8)])
        // 20 m before the turn, 6 m south of the way out (2 m north of the way back).
        let ll = CourseSketch.plane.unproject(east: 980, north: -6)
        let (x, y) = g.project(latitude: ll.lat, longitude: ll.lon)
        var scratch: [Int32] = []
        var out: [CourseProjection] = []
        g.passes(east: x, north: y, within: 40, from: 0, to: g.length, scratch: &scratch, into: &out)
        #expect(out.count == 2, "\(out.map(\.progress))")
        // The way out (and the 8 m across, still heading out of the turn),
        // then the way back; 980 m out is 98 % of the way to the turn
        // (vertex 100), and 20 m of the 1000 m back (vertex 101 on).
        let turn = g.cumulative[100], back = g.cumulative[101], end = g.length
        #expect(abs((out.first?.progress ?? 0) - 0.98 * turn) < 0.5 && abs((out.first?.distance ?? 0) - 6) < 0.5, "\(out)")
        #expect(abs((out.last?.progress ?? 0) - (back + 0.02 * (end - back))) < 0.5
                    && abs((out.last?.distance ?? 0) - 2) < 0.5, "\(out)")
    }
}
