import Foundation
import MoonRunnerCore

/// A scenario run: the course as a planner would draw it (a vertex every
/// 10 m), one GPS fix a second from a simulated receiver, and the truth for
/// each second.
///
/// The truth follows the course files' convention (off course: farther than
/// 50 m from the part of the course the runner should be on), with that part,
/// while the runner is on their own path, the course from where they left
/// to where they come back and on as far as they then run it: the stretch
/// they skip, and the course ahead that they rejoin (on course
/// within the threshold of the course ahead). The runner may be off course
/// more than once (the crossing family: off, near the loop's far side, off
/// again, back); `periods` lists each time off and when it ended (`near`:
/// the first second back within 50 m, in any direction but the course's
/// opposite: running the right part the wrong way, within 45° of its
/// opposite direction, is not being back on it). `back` is
/// a stricter moment, for reference: within 50 m of the course and moving
/// along it (within 45° of its direction where they rejoin) or on it again.
public struct RejoinRun: Sendable {
    public typealias Point = RejoinScenario.Point

    public struct Second: Sendable, Equatable {
        public var t: Double
        /// Metres along the course (as `CourseGeometry` measures it); nil on the runner's own path.
        public var progress: Double?
        /// Metres from the part of the course the runner should be on (0 on the course).
        public var distance: Double
        public var ownPath: Bool
        /// Moving within 45° of the course's direction where they rejoin.
        public var along: Bool
        /// Within 45° of the opposite of every direction the right part takes
        /// within 50 m of them: running it the wrong way, which is not being back on it.
        public var against = false
        /// Off course: farther than the threshold from the right part.
        public var off: Bool { ownPath && distance > RejoinRun.threshold }
    }

    public static let epoch = 1_700_000_000.0
    /// The off-course threshold of the truth, metres (the course matcher's `offCourseDistance`).
    public static let threshold = 50.0
    /// "Along the course": within this many degrees of its direction (as much along as across).
    public static let alongDegrees = 45.0

    public let scenario: RejoinScenario
    public let layout: RejoinLayout
    public let course: [CoursePoint]
    public let geometry: CourseGeometry
    /// One a second, `time` = `epoch` + t.
    public let fixes: [GPSFix]
    public let truth: [Second]
    /// Progress where the runner leaves the course and where they come back to it.
    public let leave: Double
    public let rejoin: Double
    /// Seconds from the start: first off course; back on course (moving along
    /// it); first within the threshold for good (any direction); on it again.
    public let firstOff: Double?
    public let back: Double?
    public let near: Double?
    public let meet: Double?
    /// Each time off course: its first second and the first second back within the threshold.
    public let periods: [(off: Double, near: Double)]

    public init(_ scenario: RejoinScenario) throws(CourseError) {
        self.scenario = scenario
        let layout = RejoinLayout(scenario)
        self.layout = layout
        // The course, densified; the indices of A and B among its vertices.
        var vertices = [layout.corners[0]]
        var aVertex = 0, bVertex = 0
        for i in 1..<layout.corners.count {
            let p = layout.corners[i - 1], q = layout.corners[i]
            let n = max(1, Int((hypot(q.x - p.x, q.y - p.y) / 10).rounded()))
            for k in 1...n {
                let f = Double(k) / Double(n)
                vertices.append(Point(p.x + f * (q.x - p.x), p.y + f * (q.y - p.y)))
            }
            if i == layout.aCorner { aVertex = vertices.count - 1 }
            if i == layout.bCorner { bVertex = vertices.count - 1 }
        }
        if layout.aCorner == 0 { aVertex = 0 }
        let plane = RejoinScenario.plane
        course = vertices.map { p in
            let ll = plane.unproject(east: p.x, north: p.y)
            return CoursePoint(latitude: ll.lat, longitude: ll.lon)
        }
        geometry = try CourseGeometry(course)
        let line = Polyline(vertices)
        let own = Polyline(layout.ownPath)
        // Plane metres to the geometry's progress (vertex by vertex).
        let cumulative = geometry.cumulative
        func progress(_ s: Double) -> Double {
            let (i, f) = line.locate(s)
            return cumulative[i] + f * (cumulative[min(i + 1, cumulative.count - 1)] - cumulative[i])
        }
        let sA = line.cumulative[aVertex], sB = line.cumulative[bVertex]
        // The part they should be on: from where they leave to as far as they run after coming back.
        let rightEnd = line.cumulative.firstIndex { $0 >= sB + layout.tail } ?? line.cumulative.count - 1
        leave = progress(sA)
        rejoin = progress(sB)
        let total = sA + own.length + layout.tail
        var rx = SimulatedGPSReceiver(seed: scenario.seed)
        rx.projection = plane
        rx.white = 0.5 * scenario.noise
        rx.wander = (1 - 0.25).squareRoot() * scenario.noise
        var fixes: [GPSFix] = []
        var truth: [Second] = []
        let ahead = layout.ahead
        var t = 0.0
        while scenario.speed * t <= total {
            let s = scenario.speed * t
            var p: Point, dir: Point
            var second = Second(t: t, progress: nil, distance: 0, ownPath: false, along: true)
            if s <= sA || s >= sA + own.length {
                let sc = s <= sA ? s : sB + (s - sA - own.length)
                p = line.point(at: sc)
                dir = line.direction(at: sc)
                second.progress = progress(sc)
            } else {
                let so = s - sA
                p = own.point(at: so)
                dir = own.direction(at: so)
                second.ownPath = true
                second.distance = line.distance(from: p, vertices: aVertex...max(aVertex, rightEnd))
                let cosine = dir.x * ahead.x + dir.y * ahead.y
                second.along = second.distance <= Self.threshold && cosine >= cos(Self.alongDegrees * .pi / 180)
                second.against = line.opposed(p, dir, vertices: aVertex...max(aVertex, rightEnd), within: Self.threshold,
                                              degrees: Self.alongDegrees)
            }
            truth.append(second)
            fixes.append(rx.fix(t: t, east: p.x, north: p.y, ve: scenario.speed * dir.x, vn: scenario.speed * dir.y))
            t += 1
        }
        self.fixes = fixes
        self.truth = truth
        let off = truth.filter(\.off)
        firstOff = off.first?.t
        back = truth.last(where: { $0.ownPath && !$0.along }).map { $0.t + 1 }
        meet = truth.first(where: { !$0.ownPath && $0.t > (off.first?.t ?? 0) })?.t
        var periods: [(off: Double, near: Double)] = []
        for second in off {
            if let last = periods.last, last.near == second.t {
                periods[periods.count - 1].near = second.t + 1
            } else {
                periods.append((second.t, second.t + 1))
            }
        }
        // Back within the threshold but running the right part the wrong way is not back yet.
        for k in periods.indices {
            var i = Int(periods[k].near)
            while i < truth.count && truth[i].ownPath && truth[i].against && !truth[i].off { i += 1 }
            periods[k].near = Double(i)
        }
        self.periods = periods
        near = periods.last?.near
    }

    /// The fix's position and 1σ for a matcher, and the time from the start.
    public func input(_ i: Int) -> (latitude: Double, longitude: Double, sigma: Double, speed: Double, heading: Double,
                                    t: Double) {
        let f = fixes[i]
        let sigma = GPSErrorModel().horizontal(of: f)?.sigma ?? .nan
        return (f.latitude, f.longitude, sigma, f.speed, f.track, f.time - Self.epoch)
    }
}

extension RejoinScenario {
    /// Where the scenarios are drawn: metres east and north of this point.
    public static let plane = LocalTangentPlane(originLat: 47.37, originLon: 8.54)
}

/// A polyline in the plane with the distance along it at each point.
struct Polyline: Sendable {
    typealias Point = RejoinScenario.Point
    let points: [Point]
    let cumulative: [Double]

    init(_ points: [Point]) {
        self.points = points
        var c = [0.0]
        for (p, q) in zip(points, points.dropFirst()) { c.append(c[c.count - 1] + hypot(q.x - p.x, q.y - p.y)) }
        cumulative = c
    }

    var length: Double { cumulative[cumulative.count - 1] }

    /// The segment holding `s` and the fraction along it.
    func locate(_ s: Double) -> (Int, Double) {
        var lo = 0, hi = cumulative.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if cumulative[mid] <= s { lo = mid } else { hi = mid }
        }
        let span = cumulative[lo + 1] - cumulative[lo]
        return (lo, span > 0 ? min(1, max(0, (s - cumulative[lo]) / span)) : 0)
    }

    func point(at s: Double) -> Point {
        let (i, f) = locate(s)
        let p = points[i], q = points[i + 1]
        return Point(p.x + f * (q.x - p.x), p.y + f * (q.y - p.y))
    }

    func direction(at s: Double) -> Point {
        var (i, _) = locate(s)
        // Past a corner exactly: the segment ahead.
        if s >= cumulative[i + 1] - 1e-9 && i + 2 < points.count { i += 1 }
        let p = points[i], q = points[i + 1]
        let l = max(hypot(q.x - p.x, q.y - p.y), 1e-9)
        return Point((q.x - p.x) / l, (q.y - p.y) / l)
    }

    /// True when moving in `dir` (a unit vector) is within `degrees` of the
    /// opposite of every segment between the given vertices that passes
    /// within `within` metres of `p` (false when none does).
    func opposed(_ p: Point, _ dir: Point, vertices: ClosedRange<Int>, within: Double, degrees: Double) -> Bool {
        var any = false
        for i in vertices.lowerBound..<max(vertices.lowerBound + 1, vertices.upperBound) where i + 1 < points.count {
            let a = points[i], b = points[i + 1]
            let dx = b.x - a.x, dy = b.y - a.y
            let l2 = dx * dx + dy * dy
            guard l2 > 0 else { continue }
            let f = min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2))
            guard hypot(p.x - a.x - f * dx, p.y - a.y - f * dy) <= within else { continue }
            any = true
            if (dir.x * dx + dir.y * dy) / l2.squareRoot() >= -cos(degrees * .pi / 180) { return false }
        }
        return any
    }

    /// Metres from `p` to the segments between the given vertices.
    func distance(from p: Point, vertices: ClosedRange<Int>) -> Double {
        guard vertices.count > 1 else { return hypot(p.x - points[vertices.lowerBound].x, p.y - points[vertices.lowerBound].y) }
        var best = Double.infinity
        for i in vertices.lowerBound..<vertices.upperBound {
            let a = points[i], b = points[i + 1]
            let dx = b.x - a.x, dy = b.y - a.y
            let l2 = dx * dx + dy * dy
            let f = l2 > 0 ? min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2)) : 0
            best = min(best, hypot(p.x - a.x - f * dx, p.y - a.y - f * dy))
        }
        return best
    }
}
