/// Settings of course following. Every value is a distance, a speed, an
/// angle or a time with a physical reason, not a fit to a recording; the
/// ones a rejoin depends on were also varied on the synthetic detours by
/// family, left out in turn (`Tests/Tools/eval_rejoin.py --cv`), and on
/// the labelled courses (`Tests/Tools/cv_course.py`).
public struct CourseMatcherConfig: Sendable, Equatable {
    /// Farther than this from the course is off course, metres (what running
    /// watches use: a street's width plus GPS error, well short of the next
    /// parallel street). Also the truth's threshold in the labelled courses.
    public var offCourseDistance = 50.0
    /// Hysteresis on the way out: off course once beyond the threshold by the
    /// margin, this many σ of the fix's horizontal error and at least
    /// `minimumMargin` metres: scatter of the distance (the fix's error plus
    /// the few metres between a planner's line and where people run) then
    /// rarely carries a runner on the course beyond it (1.5σ: 7 % of fixes,
    /// and the off dwell needs several in a row).
    public var marginSigmas = 1.5
    public var minimumMargin = 5.0
    /// Back on course within the threshold less this many σ: 0, the
    /// threshold itself. Coming back needs more than nearness (moving along
    /// the course for the on dwell, and no part of it before this one that
    /// they could be on), so a band inside the threshold only made a merge
    /// late: at 20° and a walking 1.4 m/s a runner closes on the course at
    /// 0.5 m/s, and 1.5σ of 10 m cost 30 s. On the synthetic detours
    /// (eval_rejoin.py) 1.5 leaves 10 merges late; 0 was chosen with each
    /// family left out in turn.
    public var onMarginSigmas = 0.0
    /// Off course only after this long beyond the band, over at least
    /// `offFixes` fixes in a row: multipath excursions last one to three
    /// seconds and are not a runner leaving the course; 5 s at running pace
    /// is 15 m more, a small delay for a 50 m alert.
    public var offDwell = 5.0
    public var offFixes = 3
    /// Back on course after this long within the band, over at least
    /// `onFixes` fixes in a row, moving along it (fewer seconds than off: the
    /// runner is where the course is, and a late "on course" misleads; three
    /// fixes so that one fix's heading cannot decide). On the synthetic
    /// detours 2, 3 and 5 s meet every target alike (`on_course` only moves
    /// by the dwell's own length); on the labelled courses the cross-validation
    /// found the same (cv_course.py).
    public var onDwell = 3.0
    public var onFixes = 3
    /// A gap between fixes longer than this restarts a dwell: fixes on both
    /// sides of an underpass are not "in a row", seconds (three missed 1 Hz fixes).
    public var dwellGap = 3.0
    /// The fastest a wearer moves, m/s: while following, progress may advance
    /// at most this much per second since the last match (the sprint world
    /// record, as the GPS filter's own limit). It bounds a step along the
    /// course, never the way back to it: after leaving, the course ahead is
    /// searched however far along, since a course's detour can be any
    /// multiple of the runner's shortcut.
    public var maxSpeed = 10.27
    /// Progress may move back, and forward beyond `maxSpeed`, by GPS noise
    /// only: 3σ of the fix (99.7 % of its error), at least this many metres
    /// (a planner's line and the runner's can differ by that much at a corner).
    public var minimumSlack = 10.0
    /// 1σ between a planner's line (a street's centre) and the runner's,
    /// metres: half a street's width. With the fix's σ it makes the spread a
    /// distance to the course has (`sd`, below).
    public var courseOffsetSigma = 5.0
    /// Two passes of the course whose distances from the fix differ by less
    /// than this many `sd` (√(σ² + courseOffsetSigma²)) are one place to the
    /// fix: at 2, 95 % of the distance's spread, so the two sides of a street
    /// (8 m apart) are one place to every fix. Course order then decides
    /// between them when rejoining. At 1, 84 out-and-back runs that double
    /// back beside the way back took it for a few seconds before turning onto
    /// the way out (and went off course again); 2 and 3 miss nothing, and
    /// each was chosen with a family left out.
    public var indistinctSigmas = 2.0
    /// 1σ of the wearer's speed change, m/s per second since the last match:
    /// widens the prediction the passes of a window are weighed against (a
    /// runner changes pace by about that much in a second at most).
    public var speedSigma = 1.5
    /// Joining or rejoining the course needs the wearer, when moving faster
    /// than `headingSpeed` (m/s), to move along it: within this many degrees
    /// of a direction the course takes within `offCourseDistance` of where
    /// they join (at 45° they move as much along the course as across it;
    /// someone joining at a corner cuts it and moves along the next street).
    /// A runner crossing the course, or running a shared street the other way
    /// (the other leg of an out-and-back), is not following it. On the
    /// synthetic detours 30° leaves 73 runs merging at 30° late, 60° takes 33
    /// runs returning at 60° on course while they still cross it; 45° was
    /// chosen with each family left out.
    public var maxHeadingDifference = 45.0
    /// Below this speed the receiver's course over ground is noise (at 1 m/s
    /// a 0.1 m/s Doppler error turns it by 6°, at 0.3 m/s by 20°), m/s.
    public var headingSpeed = 1.0
    /// 1σ assumed when a fix carries no error estimate, metres (a consumer
    /// receiver in the open).
    public var defaultSigma = 5.0
    /// Within this many metres of the end of the course (by progress) the
    /// course is finished: the planner's last point is rarely where the
    /// runner stops the watch (3σ of the error along the course).
    public var finishDistance = 15.0

    public init() {}
}
