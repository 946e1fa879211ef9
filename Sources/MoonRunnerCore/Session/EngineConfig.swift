/// Everything the pure core needs to know from the configuration.
public struct EngineConfig: Sendable, Equatable {
    public var detector: StepDetectorKind = .adaptive
    /// The adaptive detector's parameters: the defaults, except when
    /// `moonrunner analyze --step-parameters` evaluates others.
    public var stepParameters = AdaptiveStepDetector.Parameters()
    public var gps = GPSFilterConfig()
    public var altitude = AltitudeFusionConfig()
    public var autoPause = AutoPauseConfig()
    /// Seconds without a step after which the IMU calls the wearer still.
    public var stillAfter = 3.0
    /// Below this standard deviation of |a| (g) the IMU calls the device still
    /// (standing: ~0.01 g; walking: 0.1–0.7 g, measured on the labelled data).
    public var stillAccelStd = 0.05
    /// And below this mean rotation rate (rad/s) when there is a gyroscope.
    public var stillGyro = 0.3
    /// Course following, destination and home.
    public var navigation = NavigationConfig()
    /// Who wears the heart-rate strap: zones, training load, calories.
    public var heartRate = HeartRateProfile()
    /// When a planned workout's steps end besides their own end, and when its alerts speak.
    public var workout = WorkoutConfig()

    public init() {}
}

/// What the engine tells its owner, in order.
public enum EngineOutput: Sendable, Equatable {
    /// A counted step at this instant.
    case step(Double)
    case event(SessionEvent)
    /// An accepted track point while recording.
    case point(TrackPoint)
    /// A fix the filter refused, with the reason.
    case rejected(FixRejection, GPSFix, at: Double)
    /// A heart-rate reading while a session is open (NaN: missing, a gap).
    case heartRate(HeartRatePoint)
    /// Plausible R–R intervals (ms) of a notification that arrived at this instant, while a session is open.
    case rrIntervals(at: Double, [Double])
}

/// What is needed to carry an open session across a daemon restart.
public struct SessionSnapshot: Sendable, Equatable, Codable {
    public var state: SessionState
    public var stats: SessionStats
    public var pauses: [PauseInterval]
    /// Engine-clock instant of the latest input reflected in `stats`.
    public var lastTime: Double
    /// UTC minus engine time for this session's times, learned from the GPS
    /// receiver; nil when no fix ever told (the system clock is all there is).
    public var utcOffset: Double?
    /// The course followed, the destination and home, and where the wearer
    /// was on the course (absent in sessions recorded before courses).
    public var navigation: NavigationSnapshot?
    /// The planned workout and where the wearer was in it (absent without one).
    public var workout: WorkoutSnapshot?

    public init(state: SessionState, stats: SessionStats, pauses: [PauseInterval], lastTime: Double,
                utcOffset: Double? = nil, navigation: NavigationSnapshot? = nil, workout: WorkoutSnapshot? = nil) {
        self.state = state
        self.stats = stats
        self.pauses = pauses
        self.lastTime = lastTime
        self.utcOffset = utcOffset
        self.navigation = navigation
        self.workout = workout
    }

    private enum CodingKeys: String, CodingKey {
        case state, stats, pauses, lastTime = "last_time", utcOffset = "utc_offset", navigation, workout
    }
}
