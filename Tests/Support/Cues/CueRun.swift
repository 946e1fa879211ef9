import Foundation
import MoonRunnerCore

/// A cue scenario run through the whole offline analysis (the GPS filter,
/// the session engine and its navigator: what `moonrunner analyze --course`
/// does): one fix a second from a simulated receiver for a runner on the
/// course's own line, and the cues it said, scored against the truth.
public struct CueRun: Sendable {
    public typealias Point = RejoinScenario.Point

    public let scenario: CueScenario
    public let course: Course
    public let followed: FollowedCourse
    public let fixes: [GPSFix]

    public static let epoch = RejoinRun.epoch

    public init(_ s: CueScenario) throws(CourseError) {
        scenario = s
        let line = Polyline(s.corners)
        // The course as a planner draws it: a vertex every 10 m or so, and one at each corner.
        var vertices = [s.corners[0]]
        for (a, b) in zip(s.corners, s.corners.dropFirst()) {
            let n = max(1, Int((hypot(b.x - a.x, b.y - a.y) / 10).rounded()))
            for k in 1...n {
                let f = Double(k) / Double(n)
                vertices.append(Point(a.x + f * (b.x - a.x), a.y + f * (b.y - a.y)))
            }
        }
        let plane = RejoinScenario.plane
        course = Course(name: s.name, points: vertices.map { p in
            let ll = plane.unproject(east: p.x, north: p.y)
            return CoursePoint(latitude: ll.lat, longitude: ll.lon)
        })
        followed = try FollowedCourse(id: nil, course: course)
        var rx = SimulatedGPSReceiver(seed: s.seed)
        rx.projection = plane
        rx.white = 0.5 * s.noise
        rx.wander = (1 - 0.25).squareRoot() * s.noise
        var fixes: [GPSFix] = []
        var t = 0.0
        while s.speed * t <= line.length {
            let along = s.speed * t
            let p = line.point(at: along), dir = line.direction(at: along)
            fixes.append(rx.fix(t: t, east: p.x, north: p.y, ve: s.speed * dir.x, vn: s.speed * dir.y))
            t += 1
        }
        self.fixes = fixes
    }

    /// The events the engine raised over the run.
    public func events() -> [SessionEvent] {
        var analysis = TraceAnalysis(course: followed)
        for f in fixes { analysis.feed(f, at: f.time) }
        return analysis.finish(at: (fixes.last?.time ?? Self.epoch) + 1).events
    }

    /// Scores the cues said against the truth.
    public func score() -> CueOutcome {
        CueOutcome.score(events: events(), expected: scenario.expected, speed: scenario.speed, start: Self.epoch,
                         name: scenario.name, family: scenario.family.rawValue, noise: scenario.noise)
    }
}
