/// What the end of a workout says of it, counted as it runs: the steps run
/// to their own end and those the lap key cut short; of the effort steps
/// with a target, the seconds their measure was judged and how many of
/// them lay inside the band; and the moving distance and time of the active
/// and interval steps, for their average pace. The band is judged on the
/// runner's smoothed measure, while moving and past the step's grace, as
/// the alerts judge it, so the summary agrees with what was said during
/// the run. Codable, so that a restart keeps it; O(1) per update.
public struct WorkoutTally: Sendable, Equatable, Codable {
    public var completed = 0
    public var skipped = 0
    /// Seconds judged against a target, and of those inside the band.
    public var targetSeconds = 0.0
    public var inTargetSeconds = 0.0
    /// Metres and moving seconds in the active and interval steps.
    public var activeDistance = 0.0
    public var activeMoving = 0.0

    public init() {}

    /// Share of the judged time inside the band, 0–1; nil when none was judged.
    public var inTargetShare: Double? { targetSeconds > 0 ? inTargetSeconds / targetSeconds : nil }
    /// Average speed of the active and interval steps, m/s; nil without moving time in them.
    public var activeSpeed: Double? { activeMoving > 0 ? activeDistance / activeMoving : nil }

    private enum CodingKeys: String, CodingKey {
        case completed = "steps_done", skipped = "steps_skipped", targetSeconds = "target_s",
             inTargetSeconds = "in_target_s", activeDistance = "active_distance_m", activeMoving = "active_moving_s"
    }
}

extension StepIntensity {
    /// The efforts the summary's pace is of: warm-up and cool-down are not.
    var isEffort: Bool { self == .active || self == .interval }
}
