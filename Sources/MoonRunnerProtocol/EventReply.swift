import FoundationEssentials
import MoonRunnerCore

/// `{"class":"EVENT",...}`: sent to watchers as things happen.
public struct EventReply: Codable, Sendable, Equatable {
    public var cls = "EVENT"
    @NullCoded public var session: Int64?
    /// start | pause | resume | autopause | autoresume | lap | stop | badge | fault |
    /// off_course | on_course | course_to_go | course_finished | arrived | split | gps_lost | gps_regained |
    /// hr_connected | hr_lost | hr_zone | turn_ahead | turn_now | workout_step | target_low | target_high |
    /// target_ok | workout_done: a word, not a `SessionEventKind`, because every feature adds kinds and
    /// a client passes over one it does not know (`Announcer.say`).
    public var event: String
    public var time: Double
    public var detectedAt: Double
    public var cause: String
    public var state: SessionState
    @NullCoded public var detail: String?
    /// The figures of a `split` event as `SESSION` will list them (null for other events).
    @NullCoded public var split: SplitInfo?
    /// The cue of a `turn_ahead` or `turn_now` (absent from other events; since 1.3).
    public var cue: CueEvent?
    /// The step of a workout event and an alert's measure (absent from other events; since 1.8).
    public var workout: WorkoutEventInfo?

    public init(session: Int64?, event: SessionEvent, split: Split? = nil) {
        self.session = session
        self.event = event.kind.rawValue
        time = event.time
        detectedAt = event.detectedAt
        cause = event.cause
        state = event.state
        detail = event.detail
        self.split = split.map(SplitInfo.init)
        cue = event.cue
        workout = event.workout
    }

    enum CodingKeys: String, CodingKey {
        case cls = "class", session, event, time, detectedAt = "detected_at", cause, state, detail, split, cue, workout
    }
}
