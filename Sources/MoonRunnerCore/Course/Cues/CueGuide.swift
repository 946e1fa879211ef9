/// When to say a course's cues, from where the wearer is on the course and
/// how fast they go. Settings by name in `CueGuideConfig`.
public struct CueGuideConfig: Sendable, Equatable {
    /// A cue is said this long before the wearer reaches it at their
    /// present speed, seconds: time to hear it (about 3 s), look for the
    /// street and change sides (Garmin's and Komoot's spoken turns come
    /// 15–30 s ahead at running pace).
    public var leadTime = 20.0
    /// ...and never closer than this, metres: a walker (1.4 m/s) hears it
    /// 21 s ahead, a wearer waiting at a crossing at all.
    public var minimumLead = 30.0
    /// The turn itself is said again this long before it, seconds...
    public var nowTime = 3.0
    /// ...and no closer than this, metres (3σ of the along-course error of a
    /// good fix, so that noise does not make it late): "now" is where the
    /// wearer can already see the corner.
    public var nowDistance = 8.0
    /// A cue the wearer reaches less than this long after the one before it
    /// is said straight after that one, seconds: it is then said 20–35 s
    /// ahead, and one further apart is said once the first turn is behind,
    /// with at least this long to go (less a few seconds by which a fix's
    /// error at a corner holds the progress back).
    public var followTime = 15.0
    /// Below this speed the wearer is standing (at a crossing): "now" waits
    /// until they move towards the turn again, m/s.
    public var movingSpeed = 0.5
    /// The speed the lead is measured with is smoothed over this long,
    /// seconds: one fix's Doppler speed wanders by a few tenths of a m/s.
    public var speedSmoothing = 5.0

    public init() {}
}

/// A cue said: ahead of it, or at it.
public struct CueAnnouncement: Sendable, Equatable {
    public enum Phase: Sendable, Equatable { case ahead, now }
    public var phase: Phase
    public var cue: CourseCue
    /// Metres from the wearer to the cue along the course when it was said.
    public var distance: Double
}

/// Decides when each cue of a course is said: once about `leadTime` ahead at
/// the wearer's pace (never closer than `minimumLead`), and a turn once more
/// at it when the wearer is still moving towards it. A cue closer than
/// `followTime` behind the one just said (48 m at running pace) is said
/// straight after it: said once the first is behind, it would come with less
/// time than the gap, less a fix's error at the corner.
///
/// Only the next cues beyond the wearer's progress are looked at, so a cue
/// passed, skipped on a rejoin, on the other leg or on a later lap is never
/// said; nothing is said off course or while the matcher holds progress, nor
/// for points off the course. O(1) per fix: a look-up.
public struct CueGuide: Sendable {
    public let cues: [CourseCue]
    public let config: CueGuideConfig
    /// The first cue not yet passed or done with.
    public private(set) var next = 0
    /// Cues before this index have been said ahead.
    private var saidUpTo = 0
    private var speed = Double.nan
    private var lastTime = -Double.infinity

    /// `next`: where a restored session had got to (`NavigationSnapshot.nextCue`).
    public init(cues: [CourseCue], config: CueGuideConfig = CueGuideConfig(), next: Int = 0) {
        self.cues = cues.filter { !$0.offCourse }
        self.config = config
        self.next = min(max(0, next), self.cues.count)
        saidUpTo = self.next
    }

    /// The next cue ahead of `progress` and the metres to it; nil past the last.
    public func upcoming(progress: Double) -> (cue: CourseCue, distance: Double)? {
        guard next < cues.count else { return nil }
        return (cues[next], max(0, cues[next].courseM - progress))
    }

    /// One position on the course (`progress` metres) at time `t`, with the
    /// wearer's speed (m/s; NaN when unknown). What is to be said goes to `say`.
    public mutating func update(progress p: Double, speed v: Double, at t: Double,
                                say: (CueAnnouncement) -> Void) {
        let known = v.isFinite && v >= 0
        if known {
            let dt = t - lastTime
            let w = dt.isFinite && speed.isFinite ? min(1, max(0, dt) / config.speedSmoothing) : 1
            speed = speed.isFinite ? speed + w * (v - speed) : v
        }
        lastTime = max(lastTime, t)
        let pace = speed.isFinite ? speed : 0
        let moving = pace >= config.movingSpeed && (known ? v : pace) >= config.movingSpeed
        let window = Window(lead: max(config.minimumLead, config.leadTime * pace),
                            now: max(config.nowDistance, config.nowTime * pace), follow: config.followTime * pace)
        // Passed (or jumped past on a rejoin): never said, except a turn
        // said ahead whose "now" the fix's error carried the wearer just past.
        while next < cues.count && cues[next].courseM < p {
            let d = cues[next].courseM - p
            if cues[next].kind.isTurn && saidUpTo > next && d >= -window.now && moving {
                say(CueAnnouncement(phase: .now, cue: cues[next], distance: d))
            }
            advance()
        }
        guard next < cues.count else { return }
        let cue = cues[next]
        let d = cue.courseM - p
        if saidUpTo <= next && d <= window.lead && (d > window.now || !cue.kind.isTurn) {
            sayAhead(from: p, window, say)
            return
        }
        guard cue.kind.isTurn && d <= window.now && moving else { return }
        say(CueAnnouncement(phase: .now, cue: cue, distance: d))
        advance()
        if next < cues.count && saidUpTo <= next {
            let e = cues[next].courseM - p
            if e <= window.lead && e > window.now { sayAhead(from: p, window, say) }
        }
    }

    /// The distances a fix is judged by, metres: a cue is said ahead within
    /// `lead`, at the turn within `now`; one following closer than `follow`
    /// is said with the one before it.
    private struct Window {
        var lead: Double
        var now: Double
        var follow: Double
    }

    /// Says the next cue ahead, and the one after it when it follows closer than the lead.
    private mutating func sayAhead(from p: Double, _ w: Window, _ say: (CueAnnouncement) -> Void) {
        let cue = cues[next]
        say(CueAnnouncement(phase: .ahead, cue: cue, distance: cue.courseM - p))
        saidUpTo = next + 1
        if next + 1 < cues.count, cues[next + 1].courseM - cue.courseM < w.follow {
            let following = cues[next + 1]
            say(CueAnnouncement(phase: .ahead, cue: following, distance: following.courseM - p))
            saidUpTo = next + 2
        }
        if !cue.kind.isTurn { advance() }
    }

    private mutating func advance() {
        next += 1
        saidUpTo = max(saidUpTo, next)
    }
}
