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
/// While following, a fix is matched only within the window of progress
/// the wearer can have reached: back by GPS noise (`slack`) from the
/// furthest progress so far (which rises no faster than the wearer's own
/// speed), forward from it by `maxSpeed` × the time since the last match,
/// plus that noise. The course's passes by the fix inside the window (a
/// leg, a lap, a crossing) are weighed by their distance and by how well
/// they agree with the progress predicted from the wearer's speed; the best
/// one's nearest point is the progress. The other lap or leg is outside the
/// window or far from the prediction, so it is never taken.
///
/// Off course (or before joining), the window runs from where the wearer
/// left the course (the whole course before joining) forward by what they
/// can have covered since, and the first pass in course order within the
/// on-course band is where they (re)join, once the dwell confirms it while
/// they move along the course and its progress keeps to their own speed:
/// rejoining further on is picked up, a pass the course makes later is not
/// preferred to an earlier one, and crossing the course is not joining it.
///
/// Off and on are decided with hysteresis (a band of ±`margin` around the
/// threshold) and a dwell (time and fixes in a row), so scatter and brief
/// multipath do not flap. No fix, no evidence: an underpass without fixes
/// changes nothing, and a dwell does not bridge a gap.
public struct CourseMatcher: Sendable {
    public enum Phase: String, Sendable, Codable {
        /// Not on the course yet (the start of a session).
        case joining
        case on
        case off
    }

    public let geometry: CourseGeometry
    public let config: CourseMatcherConfig
    public private(set) var phase: Phase = .joining
    /// Progress at the last match on course (the anchor while off course).
    public private(set) var progress = 0.0
    /// When that match was made (engine clock); -∞ before joining.
    public private(set) var progressTime = -Double.infinity
    /// The furthest progress since (re)joining, rising no faster than the
    /// wearer's own speed: progress goes back from it by GPS noise only.
    public private(set) var frontier = 0.0

    /// A pass the wearer seems to be (re)joining at, followed until the dwell confirms it.
    private struct Candidate {
        var progress: Double
        var time: Double
        /// Progress when it was first seen, and metres the wearer moved since.
        var start: Double
        var travelled: Double
    }
    private var candidate: Candidate?
    private var offDwell = Dwell()
    private var onDwell = Dwell()
    private var lastFixTime = -Double.infinity
    // Reused buffers: matching a fix allocates nothing.
    private var passes: [CourseProjection] = []
    private var scratch: [Int32] = []

    public init(geometry: CourseGeometry, config: CourseMatcherConfig = CourseMatcherConfig()) {
        self.geometry = geometry
        self.config = config
        passes.reserveCapacity(16)
        scratch.reserveCapacity(256)
    }

    /// Carries on after a restart from where the snapshot left it.
    public init(geometry: CourseGeometry, config: CourseMatcherConfig, phase: Phase, progress: Double,
                progressTime: Double) {
        self.init(geometry: geometry, config: config)
        self.phase = phase
        self.progress = min(max(progress, 0), geometry.length)
        self.progressTime = phase == .joining ? -.infinity : progressTime
        frontier = self.progress
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
        let onWithin = max(0, config.offCourseDistance - margin)
        let known = speed.isFinite && speed >= 0
        let v = known ? min(speed, config.maxSpeed) : 0
        let contiguous = t - lastFixTime <= config.dwellGap
        // The direction of travel, when the wearer moves enough to have one.
        let direction = speed.isFinite && speed >= config.headingSpeed && heading.isFinite ? heading : Double.nan
        lastFixTime = max(lastFixTime, t)

        var transition: CourseTransition?
        let nearest: CourseProjection
        switch phase {
        case .on:
            let dt = max(0, t - progressTime)
            // The window: back from the frontier by noise, forward from it
            // by what the wearer can cover since the last match.
            let best = track(x, y, from: frontier - slack, to: frontier + config.maxSpeed * dt + slack,
                             predicted: progress + v * dt, dt: dt, sigma: s, slack: slack, radius: offAbove)
            if let best {
                nearest = best
                // The frontier rises no faster than the wearer moves (when
                // the speed is known): a burst of fixes thrown along the
                // course neither raises the floor nor the window's reach.
                let rise = known ? (v + config.speedSigma) * dt : .infinity
                frontier = max(frontier, min(best.progress, frontier + rise))
                progress = best.progress
                progressTime = t
            } else {
                nearest = geometry.nearest(east: x, north: y, from: frontier - slack,
                                           to: frontier + config.maxSpeed * dt + slack)
            }
            if nearest.distance > offAbove {
                if offDwell.count(at: t, contiguous: contiguous, dwell: config.offDwell, fixes: config.offFixes) {
                    phase = .off
                    transition = .offCourse(since: offDwell.since)
                    offDwell.reset()
                }
            } else {
                offDwell.reset()
            }
        case .joining, .off:
            nearest = join(x, y, now: t, speed: v, direction: direction, sigma: s, slack: slack, onWithin: onWithin,
                           offAbove: offAbove, contiguous: contiguous, transition: &transition)
        }
        let on = phase == .on
        let point = geometry.plane.unproject(east: nearest.east, north: nearest.north)
        let match = CourseMatch(time: t, progress: on ? progress : nil, distance: nearest.distance,
                                onCourse: on, offCourse: phase == .off,
                                nearest: GeoPoint(latitude: point.lat, longitude: point.lon))
        return (match, transition)
    }

    /// Off course or joining: the first pass in course order within the
    /// band, in the part of the course the wearer can be on, becomes the
    /// candidate; it is confirmed when it holds for the dwell while its
    /// progress moves no faster than the wearer's own speed explains (a
    /// position still converging after the first fixes slides along the
    /// course while the receiver says the wearer stands).
    private mutating func join(_ x: Double, _ y: Double, now t: Double, speed v: Double, direction: Double,
                               sigma s: Double, slack: Double, onWithin: Double, offAbove: Double, contiguous: Bool,
                               transition: inout CourseTransition?) -> CourseProjection {
        // The part of the course the wearer can be on: from where they left
        // it, as far as they can have gone since; all of it before joining.
        let anchored = progressTime.isFinite
        let lower = anchored ? frontier - slack : 0
        let upper = anchored ? progress + config.maxSpeed * max(0, t - progressTime) + slack : geometry.length
        geometry.passes(east: x, north: y, within: onWithin, from: lower, to: upper, scratch: &scratch, into: &passes)
        guard let first = passes.first(where: { follows($0, direction) }) else {
            candidate = nil
            onDwell.reset()
            let nearest = geometry.nearest(east: x, north: y, from: lower, to: upper)
            if phase == .joining && nearest.distance > offAbove {
                // Starting away from the course: off course without an alert, once sure.
                if offDwell.count(at: t, contiguous: contiguous, dwell: config.offDwell, fixes: config.offFixes) {
                    phase = .off
                    offDwell.reset()
                }
            } else {
                offDwell.reset()
            }
            return nearest
        }
        offDwell.reset()
        if let c = candidate, contiguous, first.progress >= c.progress - slack,
           first.progress - c.start <= c.travelled + v * (t - c.time) + slack {
            candidate = Candidate(progress: first.progress, time: t, start: c.start,
                                  travelled: c.travelled + v * (t - c.time))
        } else {
            candidate = Candidate(progress: first.progress, time: t, start: first.progress, travelled: 0)
            onDwell.reset()
        }
        if onDwell.count(at: t, contiguous: contiguous, dwell: config.onDwell, fixes: config.onFixes) {
            if phase == .off { transition = .onCourse(since: onDwell.since) }
            phase = .on
            progress = first.progress
            progressTime = t
            frontier = progress
            candidate = nil
            onDwell.reset()
        }
        return first
    }

    /// The best pass within `radius` in the window `lower...upper`: near
    /// the fix and near the progress `predicted` from the wearer's speed
    /// over the `dt` seconds since the last match. Nil when the course is
    /// nowhere that close.
    private mutating func track(_ x: Double, _ y: Double, from lower: Double, to upper: Double, predicted: Double,
                                dt: Double, sigma s: Double, slack: Double, radius: Double) -> CourseProjection? {
        geometry.passes(east: x, north: y, within: radius, from: lower, to: upper, scratch: &scratch, into: &passes)
        guard var best = passes.first else { return nil }
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

    /// True when moving in `direction` (a bearing; NaN when not moving) goes
    /// along the course near `p`: in a direction the course takes within
    /// `offCourseDistance` of it along the course (someone joining at a
    /// corner cuts it and moves along the next street).
    private func follows(_ p: CourseProjection, _ direction: Double) -> Bool {
        guard direction.isFinite else { return true }
        let reach = config.offCourseDistance
        for i in geometry.segments(from: p.progress - reach, to: p.progress + reach) {
            let d = abs(geometry.bearing(ofSegment: i) - direction).truncatingRemainder(dividingBy: 360)
            if min(d, 360 - d) <= config.maxHeadingDifference { return true }
        }
        return false
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
