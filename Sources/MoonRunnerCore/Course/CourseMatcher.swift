/// Where the wearer is on the course after one fix.
public struct CourseMatch: Sendable, Equatable {
    /// Time of the fix (engine clock).
    public var time: Double
    /// Metres along the course; nil while off course or before joining it.
    public var progress: Double?
    /// Metres from the position to the nearest point of the part of the
    /// course the wearer can be on (all of it before joining).
    public var distance: Double
    /// True while following the course (off-course alerts are pending until confirmed).
    public var onCourse: Bool
    /// True once leaving the course is confirmed (false before joining it).
    public var offCourse: Bool
    /// That nearest point of the course.
    public var nearest: GeoPoint
}

/// A confirmed change between following the course and being off it,
/// back-dated to when the evidence for it began.
public enum CourseTransition: Sendable, Equatable {
    case offCourse(since: Double)
    case onCourse(since: Double)
}

/// Matches fixes to a course that may cross itself, run out and back on the
/// same street or repeat laps of a track.
///
/// Following, a fix is matched only within the progress the wearer can have
/// reached: back by GPS noise (`slack`) from the furthest so far, forward by
/// `maxSpeed` × the time since the last match. Passes inside it are weighed by
/// distance and by agreement with the progress the wearer's speed predicts,
/// those moved along first, so another lap or leg is never taken. Off course,
/// the wearer may come back anywhere ahead (a detour can be any multiple of
/// its shortcut), decided in course order (CourseMatcher+Rejoin.swift). Off
/// and on have hysteresis (`margin`) and a dwell, so scatter does not flap; no
/// fix, no evidence. Costs the course near the fix (a segment grid), no allocation.
public struct CourseMatcher: Sendable {
    public enum Phase: String, Sendable, Codable {
        /// Not on the course yet (the start of a session).
        case joining
        case on
        case off
        /// On the course (within the threshold of the course ahead) but not
        /// yet following it: where along it the wearer is waits until their
        /// direction tells the parts near them apart (progress is held).
        case holding
    }

    /// Where the wearer was last matched on the course, and how far they can
    /// have gone since; the rejoin moves it on too when they come back.
    struct Anchor: Sendable {
        /// Progress at the last match on course (the anchor while off course).
        var progress = 0.0
        /// When that match was made (engine clock); -∞ before joining.
        var time = -Double.infinity
        /// The furthest progress since (re)joining, rising no faster than the
        /// wearer's own speed: progress goes back from it by GPS noise only.
        var frontier = 0.0
        /// Metres the wearer moved since the last match (their speed over the
        /// time), and where that match was (plane metres).
        var movedSince = 0.0
        var matchedAt = (east: 0.0, north: 0.0)

        /// True once the wearer has been matched on the course.
        var isSet: Bool { time.isFinite }

        /// A match at `progress` at `t`, the fix at (`x`, `y`).
        mutating func match(_ progress: Double, at t: Double, _ x: Double, _ y: Double) {
            self.progress = progress
            time = t
            movedSince = 0
            matchedAt = (x, y)
        }

        /// The straight line from the last match to (`x`, `y`), metres.
        func straight(_ x: Double, _ y: Double) -> Double {
            ((x - matchedAt.east) * (x - matchedAt.east) + (y - matchedAt.north) * (y - matchedAt.north)).squareRoot()
        }

        /// How far back along the course the wearer can have gone since the last
        /// match: the larger of the distance moved and the straight line from there.
        func reach(_ x: Double, _ y: Double) -> Double {
            max(movedSince, straight(x, y))
        }
    }

    /// One fix as the matcher weighs it: where it is in the course's plane,
    /// when, how the wearer moves, and the distances its error allows.
    struct Fix {
        var x: Double, y: Double, t: Double
        /// Metres per second, at most `maxSpeed`; 0 when unknown (`speedKnown` false).
        var speed: Double
        var speedKnown: Bool
        /// The direction of travel (a bearing), NaN when the wearer moves too little to have one.
        var direction: Double
        /// The fix's 1σ horizontal error, and how far back along the course that noise reaches, metres.
        var sigma: Double, slack: Double
        /// Within `onWithin` metres of the course is on it; beyond `offAbove`, off it.
        var onWithin: Double, offAbove: Double
        /// The fix follows the last one closely enough for a dwell to go on.
        var contiguous: Bool
    }

    public let geometry: CourseGeometry
    public let config: CourseMatcherConfig
    public private(set) var phase: Phase = .joining
    private var anchor = Anchor()
    /// Progress at the last match on course (the anchor while off course).
    public var progress: Double { anchor.progress }
    /// When that match was made (engine clock); -∞ before joining.
    public var progressTime: Double { anchor.time }
    /// The furthest progress since (re)joining (`Anchor.frontier`).
    public var frontier: Double { anchor.frontier }
    /// Evidence of leaving the course while following it.
    private var offDwell = Dwell()
    private var rejoin: Rejoin
    private var lastFixTime = -Double.infinity
    // Reused buffers: matching a fix allocates nothing.
    private var passes: [CourseProjection] = []
    private var scratch: [Int32] = []

    public init(geometry: CourseGeometry, config: CourseMatcherConfig = CourseMatcherConfig()) {
        self.geometry = geometry
        self.config = config
        rejoin = Rejoin(geometry: geometry, config: config)
        passes.reserveCapacity(16)
        scratch.reserveCapacity(256)
    }

    /// Carries on after a restart from where the snapshot left it.
    public init(geometry: CourseGeometry, config: CourseMatcherConfig, phase: Phase, progress: Double,
                progressTime: Double) {
        self.init(geometry: geometry, config: config)
        self.phase = phase
        anchor.progress = min(max(progress, 0), geometry.length)
        anchor.time = phase == .joining ? -.infinity : progressTime
        anchor.frontier = anchor.progress
        let p = geometry.position(atProgress: anchor.progress)
        anchor.matchedAt = geometry.project(latitude: p.latitude, longitude: p.longitude)
    }

    /// Metres to the finish from `progress`.
    public func toGo(_ progress: Double) -> Double { max(0, geometry.length - progress) }

    /// Matches one position (degrees) with its 1σ horizontal error (metres;
    /// NaN when unknown) and the wearer's speed (m/s, NaN when unknown) at
    /// engine time `t`. Fixes must come in time order.
    public mutating func update(latitude: Double, longitude: Double, sigma: Double, speed: Double,
                                heading: Double = .nan, at t: Double) -> (match: CourseMatch, transition: CourseTransition?) {
        let (x, y) = geometry.project(latitude: latitude, longitude: longitude)
        let s = sigma.isFinite && sigma > 0 ? sigma : config.defaultSigma
        let margin = max(config.minimumMargin, config.marginSigmas * s)
        let slack = max(config.minimumSlack, 3 * s)
        let offAbove = config.offCourseDistance + margin
        let onWithin = max(0, config.offCourseDistance - config.onMarginSigmas * s)
        let known = speed.isFinite && speed >= 0
        let v = known ? min(speed, config.maxSpeed) : 0
        let contiguous = t - lastFixTime <= config.dwellGap
        if lastFixTime.isFinite && t > lastFixTime { anchor.movedSince += v * (t - lastFixTime) }
        // The direction of travel, when the wearer moves enough to have one.
        let direction = speed.isFinite && speed >= config.headingSpeed && heading.isFinite ? heading : Double.nan
        lastFixTime = max(lastFixTime, t)
        let fix = Fix(x: x, y: y, t: t, speed: v, speedKnown: known, direction: direction, sigma: s, slack: slack,
                      onWithin: onWithin, offAbove: offAbove, contiguous: contiguous)

        var transition: CourseTransition?
        let nearest: CourseProjection
        switch phase {
        case .on:
            nearest = follow(fix, transition: &transition)
        case .joining, .off, .holding:
            nearest = rejoin.join(fix, phase: &phase, anchor: &anchor, transition: &transition)
        }
        let point = geometry.plane.unproject(east: nearest.east, north: nearest.north)
        let match = CourseMatch(time: t, progress: phase == .on ? progress : nil, distance: nearest.distance,
                                onCourse: phase == .on || phase == .holding, offCourse: phase == .off,
                                nearest: GeoPoint(latitude: point.lat, longitude: point.lon))
        return (match, transition)
    }

    /// On course: the best pass inside the window of progress the wearer
    /// can have reached becomes the progress; leaving is confirmed by the
    /// off-course dwell.
    private mutating func follow(_ f: Fix, transition: inout CourseTransition?) -> CourseProjection {
        let (x, y, t, v, slack, frontier) = (f.x, f.y, f.t, f.speed, f.slack, anchor.frontier)
        let nearest: CourseProjection
        let dt = max(0, t - anchor.time)
        // The window: back from the frontier by noise, forward from it
        // by what the wearer can cover since the last match.
        let best = track(x, y, from: frontier - slack, to: frontier + config.maxSpeed * dt + slack,
                         predicted: anchor.progress + v * dt, dt: dt, sigma: f.sigma, slack: slack, radius: f.offAbove,
                         direction: f.direction)
        if let best {
            nearest = best
            // The frontier rises no faster than the wearer moves (when
            // the speed is known): a burst of fixes thrown along the
            // course neither raises the floor nor the window's reach.
            let rise = f.speedKnown ? (v + config.speedSigma) * dt : .infinity
            anchor.frontier = max(frontier, min(best.progress, frontier + rise))
            anchor.match(best.progress, at: t, x, y)
        } else {
            nearest = geometry.nearest(east: x, north: y, from: frontier - slack,
                                       to: frontier + config.maxSpeed * dt + slack)
        }
        if nearest.distance > f.offAbove {
            if offDwell.count(at: t, contiguous: f.contiguous, dwell: config.offDwell, fixes: config.offFixes) {
                phase = .off
                transition = .offCourse(since: offDwell.since)
                offDwell.reset()
            }
        } else {
            offDwell.reset()
        }
        return nearest
    }

    /// The best pass within `radius` in the window `lower...upper`: near
    /// the fix and near the progress `predicted` from the wearer's speed
    /// over the `dt` seconds since the last match. Passes the wearer moves
    /// along are preferred to passes they move against (`direction`, NaN when
    /// not moving): by an out-and-back's turn, or with the fix's error as
    /// wide as the street, the leg already run can be the nearer, and a
    /// prediction made from a match on it keeps it. Nil when the course is
    /// nowhere that close.
    private mutating func track(_ x: Double, _ y: Double, from lower: Double, to upper: Double, predicted: Double,
                                dt: Double, sigma s: Double, slack: Double, radius: Double,
                                direction: Double) -> CourseProjection? {
        geometry.passes(east: x, north: y, within: radius, from: lower, to: upper, scratch: &scratch, into: &passes)
        guard var best = passes.first else { return nil }
        if passes.count > 1 && direction.isFinite {
            // Keep only the passes moved along, when there is one (in place: no allocation).
            let g = geometry
            var along = 0
            for p in passes where Self.along(g, p.segment, direction) { along += 1 }
            if along > 0 && along < passes.count {
                passes.removeAll { !Self.along(g, $0.segment, direction) }
                best = passes[0]
            }
        }
        if passes.count > 1 {
            let sd2 = s * s + config.courseOffsetSigma * config.courseOffsetSigma
            let sp = slack + config.speedSigma * dt
            let sp2 = sp * sp
            func cost(_ p: CourseProjection) -> Double {
                let dp = p.progress - predicted
                return p.distance * p.distance / sd2 + dp * dp / sp2
            }
            var bestCost = cost(best)
            for p in passes.dropFirst() {
                let c = cost(p)
                if c < bestCost {
                    best = p
                    bestCost = c
                }
            }
        }
        return best
    }

    /// True when `direction` (a bearing) is within 90° of segment `i`'s:
    /// the wearer moves along it rather than against it (the tracker's
    /// choice between legs; joining asks for `maxHeadingDifference`).
    private static func along(_ geometry: CourseGeometry, _ i: Int, _ direction: Double) -> Bool {
        let d = abs(geometry.bearing(ofSegment: i) - direction).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d) < 90
    }
}

/// Evidence for a change that must last: a time and a number of fixes in a row.
struct Dwell: Sendable {
    private(set) var since = Double.nan
    private var fixes = 0

    /// Counts one more fix; true once the evidence has lasted `dwell`
    /// seconds over `fixes` fixes. A gap (`contiguous` false) starts it again.
    mutating func count(at t: Double, contiguous: Bool, dwell: Double, fixes needed: Int) -> Bool {
        if since.isNaN || !contiguous {
            since = t
            fixes = 0
        }
        fixes += 1
        return t - since >= dwell && fixes >= needed
    }

    mutating func reset() {
        since = .nan
        fixes = 0
    }

    var pending: Int { fixes }
}
