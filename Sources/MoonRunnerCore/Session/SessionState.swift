/// Where a workout is in its life.
public enum SessionState: String, Sendable, Codable, CaseIterable {
    /// No session.
    case idle
    case recording
    /// Paused by the motion detector; resumes by itself.
    case autoPaused
    /// Paused by the wearer; never resumed automatically.
    case paused
    case stopped

    /// True while a session is open (recording or paused in any way).
    public var isActive: Bool { self == .recording || self == .autoPaused || self == .paused }
}

/// The kind of workout; everything that differs between them is its `ActivityProfile`.
/// Sessions recorded before activities existed are `run` or `walk`.
public enum Activity: String, Sendable, Codable, CaseIterable {
    case run, trailRun = "trail_run", walk, hike, ride
}

/// What happened, for the journal and for watchers.
public enum SessionEventKind: String, Sendable, Codable, CaseIterable {
    case start, pause, resume, autopause, autoresume, lap, stop, badge, fault
    /// Navigation (courses and destinations): moments of the run, not changes of state.
    case offCourse = "off_course", onCourse = "on_course", courseToGo = "course_to_go",
         courseFinished = "course_finished", arrived
    /// A whole km (or mile, per the configured units) was completed; detail: its number.
    case split
    /// No position fix for 5 s during a session, and the first fix after that.
    case gpsLost = "gps_lost", gpsRegained = "gps_regained"
    /// The heart-rate strap delivers (again), is lost; the wearer crossed into another zone (detail: 1–5).
    case hrConnected = "hr_connected", hrLost = "hr_lost", hrZone = "hr_zone"
    /// A cue of the course ahead of the wearer (a turn, a point of interest),
    /// and a turn at hand; the cue itself is in `SessionEvent.cue`.
    case turnAhead = "turn_ahead", turnNow = "turn_now"
    /// The terrain model stops covering the track (detail: the tile that would, `no tile N41E002`),
    /// and covers it again: the climb in between comes from GPS.
    case terrainLost = "terrain_lost", terrainRegained = "terrain_regained"
    /// A planned workout's step begins; its target has been left (below,
    /// above) for a while, or is met again; its last step ended. The step,
    /// and for the alerts the measure, are in `SessionEvent.workout`.
    case workoutStep = "workout_step", targetLow = "target_low", targetHigh = "target_high",
         targetOK = "target_ok", workoutDone = "workout_done"
    /// The battery's charge fell to a warning level (detail: the charge, percent).
    case batteryLow = "battery_low"

    /// True for the navigation events, which say where the wearer is, not what the session does.
    public var isNavigation: Bool {
        switch self {
        case .offCourse, .onCourse, .courseToGo, .courseFinished, .arrived, .turnAhead, .turnNow: true
        default: false
        }
    }

    /// False for the moments worth telling that do not change the session's state.
    public var isTransition: Bool {
        switch self {
        case .lap, .badge, .split, .gpsLost, .gpsRegained, .hrConnected, .hrLost, .hrZone, .terrainLost,
             .terrainRegained, .workoutStep, .targetLow, .targetHigh, .targetOK, .workoutDone, .batteryLow: false
        default: !isNavigation
        }
    }
}

/// A timestamped transition or notable moment of a session.
public struct SessionEvent: Sendable, Equatable, Codable {
    public var kind: SessionEventKind
    /// When it happened (engine clock); pauses are back-dated to when motion stopped.
    public var time: Double
    /// When the engine decided it (engine clock); equals `time` for commands.
    public var detectedAt: Double
    /// Why: "command", "steps", "no_motion", "gps_speed", ...
    public var cause: String
    /// The state after the event.
    public var state: SessionState
    /// Free-form detail (lap number, badge name, fault text).
    public var detail: String?
    /// The cue of a `turn_ahead` or `turn_now` (absent for other events).
    public var cue: CueEvent?
    /// The step of a workout event and, for an alert, its measure (absent for other events).
    public var workout: WorkoutEventInfo?

    public init(kind: SessionEventKind, time: Double, detectedAt: Double, cause: String,
                state: SessionState, detail: String? = nil, cue: CueEvent? = nil, workout: WorkoutEventInfo? = nil) {
        self.kind = kind
        self.time = time
        self.detectedAt = detectedAt
        self.cause = cause
        self.state = state
        self.detail = detail
        self.cue = cue
        self.workout = workout
    }

    private enum CodingKeys: String, CodingKey {
        case kind = "event", time, detectedAt = "detected_at", cause, state, detail, cue, workout
    }
}

/// One interval the workout was paused, in engine-clock seconds.
public struct PauseInterval: Sendable, Equatable, Codable {
    public var start: Double
    /// NaN while the pause is still open.
    public var end: Double
    /// When the pause was decided (for manual pauses the same as `start`).
    public var detectedAt: Double
    public var automatic: Bool

    public init(start: Double, end: Double, detectedAt: Double, automatic: Bool) {
        self.start = start
        self.end = end
        self.detectedAt = detectedAt
        self.automatic = automatic
    }

    private enum CodingKeys: String, CodingKey {
        case start, end, detectedAt = "detected_at", automatic
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        start = try c.decode(Double.self, forKey: .start)
        end = try c.decodeIfPresent(Double.self, forKey: .end) ?? .nan
        detectedAt = try c.decode(Double.self, forKey: .detectedAt)
        automatic = try c.decodeIfPresent(Bool.self, forKey: .automatic) ?? true
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(start, forKey: .start)
        if end.isFinite { try c.encode(end, forKey: .end) } else { try c.encodeNil(forKey: .end) }
        try c.encode(detectedAt, forKey: .detectedAt)
        try c.encode(automatic, forKey: .automatic)
    }
}

/// A command refused in the current state.
public struct SessionCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    public var command: String
    public var state: SessionState
    public init(command: String, state: SessionState) {
        self.command = command
        self.state = state
    }
    public var description: String { "cannot \(command) while \(state.rawValue)" }
}
