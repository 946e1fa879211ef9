/// What a fix off the course (or not yet on it, or held) says about coming back.
enum RejoinVerdict: Equatable {
    /// Following the pass at this index of `passes`: back there, once it lasts.
    case follow(Int)
    /// Within the threshold of the course ahead at this pass, but the
    /// direction does not (yet) tell which part: on course, progress held.
    case near(Int)
    /// Following a part already run, no further back than the wearer moved
    /// since leaving: running it again, not back on the course ahead.
    case retracing
    /// Nowhere near the course ahead.
    case away

    var isNear: Bool {
        switch self {
        case .follow, .near: true
        case .retracing, .away: false
        }
    }
}

extension CourseMatcher {
    /// Coming back to the course: off it, joining it, or on it with progress
    /// held. Within the threshold of the course ahead for the on dwell, the
    /// wearer is on course again (`on_course`, phase `holding`); where along it
    /// is decided only once they follow a part of it for the dwell, by
    /// `verdict`'s rule, while its progress moves no faster than their own
    /// speed explains (a position still converging after the first fixes
    /// slides along the course while the receiver says the wearer stands).
    /// Held and beyond the margin for the off dwell, they are off course again.
    /// Its evidence is its own; where the wearer was last matched (`Anchor`)
    /// and the phase are the matcher's, handed in.
    struct Rejoin: Sendable {
        /// A pass the wearer seems to be (re)joining at, followed until the dwell confirms it.
        struct Candidate: Sendable {
            var progress: Double
            var time: Double
            /// Progress when it was first seen, and metres the wearer moved since.
            var start: Double
            var travelled: Double
        }

        let geometry: CourseGeometry
        let config: CourseMatcherConfig
        private var candidate: Candidate?
        private var onDwell = Dwell()
        /// Evidence of being within the threshold of the course ahead, followed or not.
        private var nearDwell = Dwell()
        /// Evidence of being away from the course while joining it or held on it.
        private var offDwell = Dwell()
        // Reused buffers: a fix allocates nothing.
        private var passes: [CourseProjection] = []
        private var scratch: [Int32] = []

        init(geometry: CourseGeometry, config: CourseMatcherConfig) {
            self.geometry = geometry
            self.config = config
            passes.reserveCapacity(16)
            scratch.reserveCapacity(256)
        }

        /// One fix while not following the course: the nearest point of it that
        /// counts; `phase` and `anchor` move on when the wearer is back on it.
        mutating func join(_ f: Fix, phase: inout Phase, anchor: inout Anchor,
                           transition: inout CourseTransition?) -> CourseProjection {
            let verdict = verdict(f, anchor: anchor)
            if verdict.isNear {
                offDwell.reset()
                if phase != .holding,
                   nearDwell.count(at: f.t, contiguous: f.contiguous, dwell: config.onDwell, fixes: config.onFixes) {
                    if phase == .off { transition = .onCourse(since: nearDwell.since) }
                    phase = .holding
                    nearDwell.reset()
                }
            } else {
                nearDwell.reset()
            }
            guard case let .follow(k) = verdict else {
                candidate = nil
                onDwell.reset()
                if case let .near(k) = verdict { return passes[k] }
                return away(f, phase: &phase, anchor: anchor, transition: &transition)
            }
            let first = passes[k]
            offDwell.reset()
            if let c = candidate, f.contiguous, first.progress >= c.progress - f.slack,
               first.progress - c.start <= c.travelled + f.speed * (f.t - c.time) + f.slack {
                candidate = Candidate(progress: first.progress, time: f.t, start: c.start,
                                      travelled: c.travelled + f.speed * (f.t - c.time))
            } else {
                candidate = Candidate(progress: first.progress, time: f.t, start: first.progress, travelled: 0)
                onDwell.reset()
            }
            if onDwell.count(at: f.t, contiguous: f.contiguous, dwell: config.onDwell, fixes: config.onFixes) {
                // From `holding` the wearer was already told; from `joining` nothing is said.
                if phase == .off { transition = .onCourse(since: onDwell.since) }
                phase = .on
                anchor.match(first.progress, at: f.t, f.x, f.y)
                anchor.frontier = anchor.progress
                candidate = nil
                onDwell.reset()
                nearDwell.reset()
            }
            return first
        }

        /// Not near the course ahead: the nearest point of the part the wearer
        /// can be on. Starting away from the course is off course without an
        /// alert, once sure; held on it and now beyond the margin for the off
        /// dwell is off course again (an alert).
        private mutating func away(_ f: Fix, phase: inout Phase, anchor: Anchor,
                                   transition: inout CourseTransition?) -> CourseProjection {
            let lower = anchor.isSet ? anchor.frontier - f.slack : 0
            let nearest = geometry.nearest(east: f.x, north: f.y, from: lower, to: geometry.length)
            guard nearest.distance > f.offAbove, phase == .joining || phase == .holding else {
                offDwell.reset()
                return nearest
            }
            if phase == .holding {
                // Running again a part already run is being on the course, not off it.
                let back = geometry.nearest(east: f.x, north: f.y, from: max(0, lower - anchor.reach(f.x, f.y)),
                                            to: geometry.length)
                guard back.distance > f.offAbove else {
                    offDwell.reset()
                    return nearest
                }
            }
            if offDwell.count(at: f.t, contiguous: f.contiguous, dwell: config.offDwell, fixes: config.offFixes) {
                if phase == .holding { transition = .offCourse(since: offDwell.since) }
                phase = .off
                offDwell.reset()
            }
            return nearest
        }

        /// Where a wearer off the course (or not yet on it) stands against it, the
        /// passes within `onWithin` taken in course order:
        /// - a pass they ran before leaving, no further back than they have moved
        ///   since, that they follow: `retracing` (the same place on a later lap is
        ///   not theirs); one they only pass by, no further back than the straight
        ///   line from where they left, makes a part ahead as near as it not theirs;
        /// - the first pass ahead they follow, unless a part before it is within
        ///   `blur` (the other side of the street): `follow`;
        /// - else the first pass ahead whose band they are in: `near`, progress held,
        ///   unless they run against it (within 45° of its opposite): not back.
        /// The part where they left (back by GPS noise), not followed, is `near` only
        /// when nothing else is; a later lap or the other leg is never taken instead.
        private mutating func verdict(_ f: Fix, anchor: Anchor) -> RejoinVerdict {
            let (x, y, s, slack, direction) = (f.x, f.y, f.sigma, f.slack, f.direction)
            let anchored = anchor.isSet, frontier = anchor.frontier
            // Nearer than this apart, two passes are one place to the fix.
            let blur = config.indistinctSigmas * (s * s + config.courseOffsetSigma * config.courseOffsetSigma).squareRoot()
            let left = frontier - slack
            let lower = anchored ? max(0, left - anchor.reach(x, y)) : 0
            geometry.passes(east: x, north: y, within: f.onWithin + blur, from: lower, to: geometry.length,
                            scratch: &scratch, into: &passes)
            // The nearest part already run that lies no further back along the
            // course than the straight line from where they left: a place they
            // could have walked back to, the same place as a later lap or leg there.
            var behind = Double.infinity
            if anchored {
                let straight = anchor.straight(x, y)
                for p in passes where p.progress < left && left - p.progress <= straight + slack {
                    behind = min(behind, p.distance)
                }
            }
            var atFrontier: Int?
            for i in passes.indices where passes[i].distance <= f.onWithin {
                let p = passes[i]
                let followed = follows(p, direction)
                if anchored && p.progress < left {
                    if followed { return .retracing }
                    continue
                }
                if followed {
                    // A part before it as near as the fix can tell: not back on this one yet; on
                    // the course, unless they run that part the wrong way (this is its other leg).
                    for e in passes[..<i] where !(anchored && e.progress <= frontier) && e.distance <= p.distance + blur {
                        return opposes(e, direction) ? .away : .near(i)
                    }
                    return .follow(i)
                }
                if anchored && p.progress <= frontier {
                    if atFrontier == nil && !opposes(p, direction) { atFrontier = i }
                    continue
                }
                // The first part ahead they are near but do not follow: not back
                // there yet, and nothing later is theirs instead; on it, unless
                // they run it the wrong way (the other leg beside them).
                return abs(p.distance - behind) <= blur || opposes(p, direction) ? .away : .near(i)
            }
            return atFrontier.map { .near($0) } ?? .away
        }

        /// True when moving in `direction` (a bearing; NaN when not moving) goes
        /// along the course near `p`: in a direction the course takes within
        /// `offCourseDistance` of it along the course (someone joining at a
        /// corner cuts it and moves along the next street).
        private func follows(_ p: CourseProjection, _ direction: Double) -> Bool {
            heading(direction, within: config.maxHeadingDifference, near: p)
        }

        /// True when moving in `direction` goes against the course near `p`:
        /// within `maxHeadingDifference` of the opposite of every direction the
        /// course takes within `offCourseDistance` of it (running a street the
        /// course runs the other way). False when not moving.
        private func opposes(_ p: CourseProjection, _ direction: Double) -> Bool {
            direction.isFinite && !heading(direction, within: 180 - config.maxHeadingDifference, near: p)
        }

        /// True when `direction` is within `limit` degrees of a direction the
        /// course takes within `offCourseDistance` of `p` along it (or not moving).
        private func heading(_ direction: Double, within limit: Double, near p: CourseProjection) -> Bool {
            guard direction.isFinite else { return true }
            let reach = config.offCourseDistance
            for i in geometry.segments(from: p.progress - reach, to: p.progress + reach) {
                let d = abs(geometry.bearing(ofSegment: i) - direction).truncatingRemainder(dividingBy: 360)
                if min(d, 360 - d) <= limit { return true }
            }
            return false
        }
    }
}
