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
    /// Off course, joining, or on it with progress held. Within the threshold
    /// of the course ahead for the on dwell, the wearer is on course again
    /// (`on_course`, phase `holding`); where along it is decided only once
    /// they follow a part of it for the dwell, by `rejoinVerdict`'s rule, while
    /// its progress moves no faster than their own speed explains (a position
    /// still converging after the first fixes slides along the course while
    /// the receiver says the wearer stands). Held and beyond the margin for
    /// the off dwell, they are off course again.
    mutating func join(_ x: Double, _ y: Double, now t: Double, speed v: Double, direction: Double,
                       sigma s: Double, slack: Double, onWithin: Double, offAbove: Double, contiguous: Bool,
                       transition: inout CourseTransition?) -> CourseProjection {
        let anchored = progressTime.isFinite
        let verdict = rejoinVerdict(within: onWithin, sigma: s, slack: slack, direction: direction, anchored: anchored, x, y)
        if verdict.isNear {
            offDwell.reset()
            if phase != .holding,
               nearDwell.count(at: t, contiguous: contiguous, dwell: config.onDwell, fixes: config.onFixes) {
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
            return awayFromCourse(x, y, now: t, slack: slack, offAbove: offAbove, contiguous: contiguous,
                                  transition: &transition)
        }
        let first = passes[k]
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
            // From `holding` the wearer was already told; from `joining` nothing is said.
            if phase == .off { transition = .onCourse(since: onDwell.since) }
            phase = .on
            progress = first.progress
            progressTime = t
            movedSince = 0
            matchedAt = (x, y)
            frontier = progress
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
    private mutating func awayFromCourse(_ x: Double, _ y: Double, now t: Double, slack: Double, offAbove: Double,
                                         contiguous: Bool, transition: inout CourseTransition?) -> CourseProjection {
        let anchored = progressTime.isFinite
        let lower = anchored ? frontier - slack : 0
        let nearest = geometry.nearest(east: x, north: y, from: lower, to: geometry.length)
        guard nearest.distance > offAbove, phase == .joining || phase == .holding else {
            offDwell.reset()
            return nearest
        }
        if phase == .holding {
            // Running again a part already run is being on the course, not off it.
            let back = geometry.nearest(east: x, north: y, from: max(0, lower - reach(x, y)), to: geometry.length)
            guard back.distance > offAbove else {
                offDwell.reset()
                return nearest
            }
        }
        if offDwell.count(at: t, contiguous: contiguous, dwell: config.offDwell, fixes: config.offFixes) {
            if phase == .holding { transition = .offCourse(since: offDwell.since) }
            phase = .off
            offDwell.reset()
        }
        return nearest
    }

    /// How far back along the course the wearer can have gone since the last
    /// match: the larger of the distance moved and the straight line from there.
    func reach(_ x: Double, _ y: Double) -> Double {
        max(movedSince, ((x - matchedAt.east) * (x - matchedAt.east)
                         + (y - matchedAt.north) * (y - matchedAt.north)).squareRoot())
    }

    /// Where a wearer off the course (or not yet on it) stands against it,
    /// the passes within `onWithin` taken in course order:
    /// - a pass they ran before leaving, no further back than they have
    ///   moved since, that they follow: they are running it again
    ///   (`retracing`), and the same place on a later lap is not theirs;
    ///   one they only pass by blocks nothing, but where it lies no further
    ///   back than the straight line from where they left, a part ahead as
    ///   near as it (the same place on a later lap, the other leg beside the
    ///   part before where they left) is not the course ahead to them;
    /// - the first pass ahead that they follow, unless a part before it is as
    ///   near as the fix can tell (the other side of the street: within
    ///   `blur`): `follow`, back there;
    /// - otherwise the first pass ahead they are in the band of (crossing it,
    ///   running beside it the other way, the other leg beside theirs):
    ///   `near`, on the course with progress held, unless they run against
    ///   it (within 45° of its opposite direction: the other leg of an
    ///   out-and-back beside them, the course run the wrong way): not back;
    ///   a later lap or the other leg is never taken instead.
    /// The part where they left (the frontier, back by GPS noise) they do not
    /// follow is `near` only when nothing else is.
    mutating func rejoinVerdict(within onWithin: Double, sigma s: Double, slack: Double, direction: Double,
                                anchored: Bool, _ x: Double, _ y: Double) -> RejoinVerdict {
        // Nearer than this apart, two passes are one place to the fix.
        let blur = config.indistinctSigmas * (s * s + config.courseOffsetSigma * config.courseOffsetSigma).squareRoot()
        let left = frontier - slack
        let lower = anchored ? max(0, left - reach(x, y)) : 0
        geometry.passes(east: x, north: y, within: onWithin + blur, from: lower, to: geometry.length,
                        scratch: &scratch, into: &passes)
        // The nearest part already run that lies no further back along the
        // course than the straight line from where they left: a place they
        // could have walked back to, the same place as a later lap or leg there.
        var behind = Double.infinity
        if anchored {
            let straight = ((x - matchedAt.east) * (x - matchedAt.east)
                            + (y - matchedAt.north) * (y - matchedAt.north)).squareRoot()
            for p in passes where p.progress < left && left - p.progress <= straight + slack {
                behind = min(behind, p.distance)
            }
        }
        var atFrontier: Int?
        for i in passes.indices where passes[i].distance <= onWithin {
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
}
