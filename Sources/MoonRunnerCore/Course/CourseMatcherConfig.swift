/// Settings of course following. Every value is a distance, a speed or a
/// time with a physical reason, not a fit to a recording.
public struct CourseMatcherConfig: Sendable, Equatable {
    /// Farther than this from the course is off course, metres (what running
    /// watches use: a street's width plus GPS error, well short of the next
    /// parallel street).
    public var offCourseDistance = 50.0
    /// Hysteresis around the threshold: off course once beyond it by the
    /// margin, back on once within it by the margin. The margin is this many
    /// σ of the fix's horizontal error, at least `minimumMargin`: scatter of
    /// the distance (fix error plus the few metres between a planner's line
    /// and where people run) then rarely crosses the whole band.
    public var marginSigmas = 1.5
    public var minimumMargin = 5.0
    /// Off course only after this long beyond the band, over at least
    /// `offFixes` fixes in a row: multipath excursions last one to three
    /// seconds and are not a runner leaving the course; 5 s at running pace
    /// is 15 m more, a small delay for a 50 m alert.
    public var offDwell = 5.0
    public var offFixes = 3
    /// Back on course after this long within the band (fewer fixes: the
    /// runner is where the course is, and a late "on course" misleads).
    public var onDwell = 3.0
    public var onFixes = 3
    /// A gap between fixes longer than this restarts a dwell: fixes on both
    /// sides of an underpass are not "in a row", seconds.
    public var dwellGap = 3.0
    /// The fastest a wearer moves, m/s: progress may advance at most this
    /// much per second since the last match (the sprint world record, as the
    /// GPS filter's own limit).
    public var maxSpeed = 10.27
    /// Progress may move back, and forward beyond `maxSpeed`, by GPS noise
    /// only: 3σ of the fix, at least this many metres.
    public var minimumSlack = 10.0
    /// 1σ between a planner's line (a street's centre) and the runner's, metres.
    public var courseOffsetSigma = 5.0
    /// 1σ of the wearer's speed change, m/s per second since the last match:
    /// widens the prediction the passes of a window are weighed against.
    public var speedSigma = 1.5
    /// Joining or rejoining the course needs the wearer, when moving faster
    /// than `headingSpeed` (m/s), to move along it: within this many degrees
    /// of a direction the course takes near where they join (at 45° they
    /// move as much along the course as across it). A runner crossing the
    /// course, or running a shared street the other way (the other leg of an
    /// out-and-back), is not following it.
    public var maxHeadingDifference = 45.0
    public var headingSpeed = 1.0
    /// 1σ assumed when a fix carries no error estimate, metres.
    public var defaultSigma = 5.0
    /// Within this many metres of the end of the course (by progress) the
    /// course is finished: the planner's last point is rarely where the
    /// runner stops the watch.
    public var finishDistance = 15.0

    public init() {}
}
