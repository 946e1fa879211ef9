import Foundation
@testable import MoonRunnerCore
import MoonRunnerTestSupport

/// Courses and runs drawn in metres east/north of a point, for the course tests.
struct CourseSketch {
    static let plane = LocalTangentPlane(originLat: 47.37, originLon: 8.54)

    /// Vertices every `spacing` metres along the polyline through `corners`.
    static func vertices(_ corners: [(Double, Double)], spacing: Double = 10) -> [(Double, Double)] {
        var out = [corners[0]]
        for (a, b) in zip(corners, corners.dropFirst()) {
            let len = hypot(b.0 - a.0, b.1 - a.1)
            let n = max(1, Int((len / spacing).rounded()))
            for k in 1...n {
                let f = Double(k) / Double(n)
                out.append((a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1)))
            }
        }
        return out
    }

    static func points(_ xy: [(Double, Double)]) -> [CoursePoint] {
        xy.map { p in
            let ll = plane.unproject(east: p.0, north: p.1)
            return CoursePoint(latitude: ll.lat, longitude: ll.lon)
        }
    }

    static func geometry(_ corners: [(Double, Double)], spacing: Double = 10) throws -> CourseGeometry {
        try CourseGeometry(points(vertices(corners, spacing: spacing)))
    }

    /// A 400 m running track (two 100 m straights, two bends of radius 31.83 m), `laps` times round.
    static func track(laps: Int) -> [(Double, Double)] {
        let r = 100 / Double.pi * 1.0
        var lap: [(Double, Double)] = []
        for k in 0..<10 { lap.append((Double(k) * 10, 0)) }
        for k in 0..<16 { let a = -Double.pi / 2 + Double(k) * Double.pi / 16; lap.append((100 + r * cos(a), r + r * sin(a))) }
        for k in 0..<10 { lap.append((100 - Double(k) * 10, 2 * r)) }
        for k in 0..<16 { let a = Double.pi / 2 + Double(k) * Double.pi / 16; lap.append((r * cos(a), r + r * sin(a))) }
        var all: [(Double, Double)] = []
        for _ in 0..<laps { all += lap }
        all.append((0, 0))
        return all
    }
}

/// A runner moving along a polyline at a steady speed, with correlated GPS
/// noise, stops (time standing still) and gaps (no fixes), one fix a second.
struct SimulatedRun {
    struct Fix {
        var t: Double
        var east: Double
        var north: Double
        /// Metres the runner has covered along the path.
        var along: Double
        var speed: Double
        var heading: Double
    }

    var path: [(Double, Double)]
    var speed = 3.0
    var noise = 3.0
    /// Correlation time of the noise, seconds (receivers wander over tens of seconds).
    var correlation = 20.0
    /// (at metres along the path, seconds standing)
    var stops: [(Double, Double)] = []
    /// (from, to) seconds without fixes
    var gaps: [(Double, Double)] = []
    /// (from, to) seconds with fixes thrown this far east
    var bursts: [(Double, Double, Double)] = []
    var seed: UInt64 = 1

    func fixes() -> [Fix] {
        var cum = [0.0]
        for (a, b) in zip(path, path.dropFirst()) { cum.append(cum[cum.count - 1] + hypot(b.0 - a.0, b.1 - a.1)) }
        let total = cum[cum.count - 1]
        var rng = GPSTestRandom(seed: seed)
        var out: [Fix] = []
        var along = 0.0, t = 0.0, ex = 0.0, ey = 0.0
        var stopsLeft = stops.sorted { $0.0 < $1.0 }
        var standing = 0.0
        let keep = exp(-1.0 / correlation)
        while along <= total {
            var i = 0
            while i + 1 < cum.count - 1 && cum[i + 1] < along { i += 1 }
            let a = path[i], b = path[i + 1]
            let span = max(cum[i + 1] - cum[i], 1e-9)
            let f = min(1, max(0, (along - cum[i]) / span))
            ex = ex * keep + rng.gaussian() * noise * (1 - keep * keep).squareRoot()
            ey = ey * keep + rng.gaussian() * noise * (1 - keep * keep).squareRoot()
            var x = a.0 + f * (b.0 - a.0) + ex, y = a.1 + f * (b.1 - a.1) + ey
            for burst in bursts where t >= burst.0 && t < burst.1 { x += burst.2 }
            let heading = atan2(b.0 - a.0, b.1 - a.1) * 180 / .pi
            let moving = standing <= 0
            if !gaps.contains(where: { t >= $0.0 && t < $0.1 }) {
                out.append(Fix(t: t, east: x, north: y, along: along, speed: moving ? speed : 0.1,
                               heading: heading < 0 ? heading + 360 : heading))
            }
            t += 1
            if standing > 0 {
                standing -= 1
            } else if let s = stopsLeft.first, along >= s.0 {
                standing = s.1
                stopsLeft.removeFirst()
            } else {
                along += speed
            }
        }
        return out
    }
}

/// What a matcher made of a simulated run.
struct MatchedRun {
    var fixes: [SimulatedRun.Fix] = []
    var matches: [CourseMatch] = []
    var transitions: [CourseTransition] = []
    /// Each `on_course`: back-dated time and when it was decided (the fix's time).
    var onCourseTimes: [(since: Double, detected: Double)] = []

    init(_ run: SimulatedRun, on geometry: CourseGeometry, sigma: Double? = nil, config: CourseMatcherConfig = .init()) {
        var m = CourseMatcher(geometry: geometry, config: config)
        for f in run.fixes() {
            let ll = CourseSketch.plane.unproject(east: f.east, north: f.north)
            let (match, transition) = m.update(latitude: ll.lat, longitude: ll.lon, sigma: sigma ?? run.noise,
                                               speed: f.speed, heading: f.heading, at: f.t)
            fixes.append(f)
            matches.append(match)
            if let transition { transitions.append(transition) }
            if case let .onCourse(since)? = transition { onCourseTimes.append((since, f.t)) }
        }
    }

    /// Largest |progress − metres covered| while on course, after `settle` seconds.
    func worstError(settle: Double = 20, offset: (Double) -> Double = { $0 }) -> Double {
        zip(fixes, matches).filter { $0.0.t >= settle }.compactMap { f, m in m.progress.map { abs($0 - offset(f.along)) } }
            .max() ?? .infinity
    }

    var offCourseAlerts: Int { transitions.filter { if case .offCourse = $0 { true } else { false } }.count }
    var onCourseAlerts: Int { transitions.filter { if case .onCourse = $0 { true } else { false } }.count }
}
