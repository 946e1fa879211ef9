/// The heart of MoonRunner: one workout's state machine and statistics.
///
/// A pure value: IMU samples, GPS fixes, commands and the passing of time
/// come in with explicit timestamps (the engine clock), and what happened
/// goes out through `emit`, in order. The daemon runs it live, `moonrunner
/// analyze` runs it over recorded traces, tests run it over anything.
public struct SessionEngine: Sendable {
    public let config: EngineConfig
    public private(set) var state: SessionState = .idle
    public internal(set) var stats = SessionStats()
    /// The session's pauses, oldest first.
    public var pauses: [PauseInterval] { pauseLog.intervals }
    /// Latest instant the engine has seen.
    public private(set) var now = -Double.infinity
    /// IMU samples refused as implausible (non-finite or beyond full scale).
    public internal(set) var rejectedSamples = 0
    /// Course, destination and home of the open session (nil when idle).
    public internal(set) var navigator: Navigator?
    /// The rules of the session's activity, taken at its start (the last
    /// session's while idle, a run's before any).
    public private(set) var profile = Activity.run.profile
    /// How fast the session climbs now (m/h: `climbRate.metresPerHour`).
    public internal(set) var climbRate = ClimbRate()
    /// A steady climb as evidence of motion for auto-pause without an IMU.
    var climbEvidence = ClimbEvidence()
    /// The planned workout of the open session, if any, and where the wearer is in it.
    public private(set) var workout = SessionWorkout()

    var detector: AnyStepDetector
    var cadence = CadenceEstimator()
    var energy = MotionEnergy()
    var autoPause: AutoPauseDetector
    var gps: GPSFilter
    var shaper = TrackShaper()
    /// UTC as the receiver tells it; kept across sessions (the receiver outlives them).
    public internal(set) var receiverClock = ReceiverClock()
    /// The UTC offset of the open session: the receiver's, from the session's
    /// start or its first fix on (a restored session keeps the one it had).
    var sessionOffset: Double?
    var altitude: AltitudeFusion
    /// The ground's elevation under the track (a DEM), when the wearer has tiles.
    let terrain: (any TerrainModel)?
    var terrainWatch = TerrainWatch()
    var lastStep = -Double.infinity
    var lastSampleTime = -Double.infinity
    var lastFixTime = -Double.infinity
    private var pauseLog = SessionPauses()
    /// The strap's readings: the heart rate now, its zone, the session's figures.
    public private(set) var heartRate: HeartRateTrack

    static let maxStepsPerSample = 32

    public init(config: EngineConfig = EngineConfig(), terrain: (any TerrainModel)? = nil) {
        self.config = config
        self.terrain = terrain
        detector = AnyStepDetector(kind: config.detector, parameters: config.stepParameters)
        autoPause = AutoPauseDetector(config: config.autoPause)
        gps = GPSFilter(config: config.gps)
        altitude = AltitudeFusion(config: config.altitude)
        heartRate = HeartRateTrack(profile: config.heartRate)
    }

    /// Current GPS signal grade.
    public var signal: SignalGrade { gps.signal }
    /// Where the latest altitude came from.
    public var altitudeSource: AltitudeSource { altitude.source }
    /// What the barometer sent so far, and what of it was refused.
    public var baroCounters: BaroCounters { altitude.counters }
    /// True when IMU samples arrived within the last two seconds.
    public var hasIMU: Bool { now - lastSampleTime <= 2 }
    /// True when a position fix arrived within the last five seconds.
    public var hasGPS: Bool { now - lastFixTime <= 5 }
    /// The session's heart rate so far over its moving time (up to its end once
    /// it stopped), by the stored session's rules; nil while idle.
    public var heartRateSummary: HeartRateSummary? {
        guard state != .idle, stats.startTime.isFinite else { return nil }
        return heartRate.summary(paused: PausedTime(pauses), from: stats.startTime, to: stats.startTime + stats.elapsed)
    }
    /// The snapshot the store keeps so that a restart can carry on.
    public var snapshot: SessionSnapshot {
        SessionSnapshot(state: state, stats: stats, pauses: pauses, lastTime: now, utcOffset: sessionOffset,
                        navigation: navigator?.snapshot, workout: workout.snapshot)
    }

    // MARK: Commands

    /// Starts a session, following `course`, heading for `destination` and running `plan` when given.
    public mutating func start(activity: Activity, at t: Double, course: FollowedCourse? = nil,
                               destination: GeoPoint? = nil, workout plan: WorkoutPlan? = nil,
                               emit: (EngineOutput) -> Void) throws(SessionCommandError) {
        try start(profile: activity.profile, at: t, course: course, destination: destination, workout: plan, emit: emit)
    }

    /// Starts a session under `profile`: its activity's own, or one an evaluation varied.
    public mutating func start(profile: ActivityProfile, at t: Double, course: FollowedCourse? = nil,
                               destination: GeoPoint? = nil, workout plan: WorkoutPlan? = nil,
                               emit: (EngineOutput) -> Void) throws(SessionCommandError) {
        guard !state.isActive else { throw SessionCommandError(command: "start", state: state) }
        let activity = profile.activity
        advanceClock(t)
        take(profile)
        navigator = Navigator(course: course, destination: destination, config: navigationConfig)
        stats = SessionStats()
        climbRate = ClimbRate()
        climbEvidence.reset()
        stats.activity = activity
        stats.startTime = t
        sessionOffset = receiverClock.offset
        pauseLog = SessionPauses()
        heartRate.startSession()
        state = .recording
        autoPause.restart(at: t)
        gps.breakSegment()
        shaper = TrackShaper()
        shaper.resume(at: t, segmentBreak: true)
        altitude.breakSegment()
        terrainWatch = TerrainWatch()
        emit(.event(SessionEvent(kind: .start, time: t, detectedAt: t, cause: "command", state: state,
                                 detail: activity.rawValue)))
        workout = SessionWorkout(plan: plan, config: config.workout)
        workout.start(WorkoutInput(self), state: state, emit: emit)
    }

    public mutating func pause(at t: Double, emit: (EngineOutput) -> Void) throws(SessionCommandError) {
        guard state == .recording || state == .autoPaused else {
            throw SessionCommandError(command: "pause", state: state)
        }
        advance(to: t, emit: emit)
        if state == .autoPaused, !pauses.isEmpty {
            // Already stopped: the wearer makes it their own pause, from when it began.
            pauseLog.ownLast()
        } else {
            pauseLog.open(PauseInterval(start: t, end: .nan, detectedAt: t, automatic: false))
        }
        state = .paused
        refreshTimes()
        emit(.event(SessionEvent(kind: .pause, time: t, detectedAt: t, cause: "command", state: state)))
        workout.update(WorkoutInput(self), state: state, emit: emit)
    }

    public mutating func resume(at t: Double, emit: (EngineOutput) -> Void) throws(SessionCommandError) {
        guard state == .paused || state == .autoPaused else {
            throw SessionCommandError(command: "resume", state: state)
        }
        advanceClock(t)
        pauseLog.close(at: t)
        state = .recording
        autoPause.restart(at: t)
        gps.breakSegment()
        shaper.resume(at: t, segmentBreak: true)
        altitude.breakSegment()
        refreshTimes()
        emit(.event(SessionEvent(kind: .resume, time: t, detectedAt: t, cause: "command", state: state)))
        workout.update(WorkoutInput(self), state: state, emit: emit)
    }

    public mutating func lap(at t: Double, emit: (EngineOutput) -> Void) throws(SessionCommandError) {
        guard state.isActive else { throw SessionCommandError(command: "lap", state: state) }
        advance(to: t, emit: emit)
        stats.laps += 1
        emit(.event(SessionEvent(kind: .lap, time: t, detectedAt: t, cause: "command", state: state,
                                 detail: String(stats.laps))))
        workout.lap(WorkoutInput(self), state: state, emit: emit)
    }

    /// Ends the session; `cause` says why ("command", or "battery" when a
    /// flat cell would otherwise end it).
    public mutating func stop(at t: Double, cause: String = "command",
                              emit: (EngineOutput) -> Void) throws(SessionCommandError) {
        guard state.isActive else { throw SessionCommandError(command: "stop", state: state) }
        advance(to: t, emit: emit)
        if state == .recording && (hasIMU || hasGPS) {
            // Standing at the finish before pressing stop is not moving time.
            handle(autoPause.sessionEnds(at: now), emit: emit)
        }
        pauseLog.close(at: now)
        refreshTimes()
        state = .stopped
        stats.speed = 0
        stats.cadence = 0
        emit(.event(SessionEvent(kind: .stop, time: now, detectedAt: now, cause: cause, state: state)))
    }

    /// Carries on a session that a crash or restart interrupted. The time the
    /// daemon was away counts as a pause: nobody knows what happened in it.
    /// `course` is the snapshot's course as the store still has it.
    public mutating func restore(_ snapshot: SessionSnapshot, course: FollowedCourse? = nil, at t: Double,
                                 emit: (EngineOutput) -> Void) {
        advanceClock(max(t, snapshot.lastTime))
        take(snapshot.stats.activity.profile)
        workout = SessionWorkout(restoring: snapshot.workout, profile: config.heartRate, config: config.workout)
        navigator = snapshot.navigation.map { Navigator(restoring: $0, course: course, config: navigationConfig) }
            ?? Navigator(course: nil, destination: nil, config: navigationConfig)
        stats = snapshot.stats
        sessionOffset = snapshot.utcOffset
        state = snapshot.state == .paused ? .paused : .recording
        pauseLog = state == .recording ? SessionPauses(resuming: snapshot.pauses, lastTime: snapshot.lastTime, now: now)
            : SessionPauses(snapshot.pauses)
        autoPause.restart(at: now)
        gps.reset()
        shaper = TrackShaper()
        shaper.resume(at: now, segmentBreak: false)
        altitude.reset()
        refreshTimes()
        emit(.event(SessionEvent(kind: .resume, time: now, detectedAt: now, cause: "recovery", state: state)))
    }

    /// Takes back the heart-rate readings a restored session had stored, so that its figures go on from them.
    public mutating func restoreHeartRate(_ readings: [HeartRatePoint]) {
        heartRate.restore(readings, at: now, pauses: pauses, from: stats.startTime)
    }

    // MARK: Inputs (the IMU: SessionEngine+Motion.swift; GPS: SessionEngine+GPS.swift)

    /// One barometer reading. Refused readings (impossible, out of order,
    /// frozen) are counted in `baroCounters` and change nothing.
    public mutating func ingest(_ sample: BaroSample, emit: (EngineOutput) -> Void) {
        guard altitude.ingest(sample) == nil else { return }
        advanceClock(sample.t)
        checkAutoPause(emit: emit)
    }

    /// One heart-rate reading, as `heartRate` takes it: while a session is open the reading and its
    /// R–R intervals go out for the store (and its figures); while recording, a zone crossed is an event.
    public mutating func ingest(_ sample: HeartRateSample, emit: (EngineOutput) -> Void) {
        guard let taken = heartRate.take(sample) else { return }
        advanceClock(sample.t)
        if state.isActive, !taken.rrMilliseconds.isEmpty { emit(.rrIntervals(at: sample.t, taken.rrMilliseconds)) }
        if state.isActive, let reading = taken.reading {
            emit(.heartRate(reading))
            heartRate.record(reading, pauses: pauses, from: stats.startTime)
        }
        if let zone = taken.zone, state == .recording {
            emit(.event(SessionEvent(kind: .hrZone, time: sample.t, detectedAt: sample.t, cause: "heart_rate",
                                     state: state, detail: String(zone))))
        }
        checkAutoPause(emit: emit)
    }

    /// Time passes without input (the daemon's 1 Hz tick).
    public mutating func advance(to t: Double, emit: (EngineOutput) -> Void) {
        advanceClock(t)
        checkAutoPause(emit: emit)
    }

    // MARK: Internals

    /// The activity's rules take effect: the filter's gates, the auto-pause rule.
    private mutating func take(_ profile: ActivityProfile) {
        self.profile = profile
        gps.config = profile.gpsConfig(config.gps)
        autoPause.config = profile.autoPauseConfig(config.autoPause)
    }

    /// Course matching reaches as far as the activity's speed gate lets the wearer go.
    private var navigationConfig: NavigationConfig {
        var c = config.navigation
        c.matcher.maxSpeed = max(c.matcher.maxSpeed, gps.config.maxSpeed)
        return c
    }

    /// After every input: auto-pause's verdict as time passes, the session's
    /// times, and the workout when its next update is due.
    mutating func checkAutoPause(emit: (EngineOutput) -> Void) {
        // Stillness must be observed: with neither IMU samples nor fixes
        // arriving, nothing is known and nothing is paused.
        if state == .recording && (hasIMU || hasGPS) {
            handle(autoPause.tick(at: now), emit: emit)
        }
        refreshTimes()
        if workout.isDue(at: now) { workout.update(WorkoutInput(self), state: state, emit: emit) }
    }

    /// An auto-pause decision taken: the pause opened or closed where it was back-dated to.
    mutating func handle(_ decision: AutoPauseDetector.Decision?, emit: (EngineOutput) -> Void) {
        switch decision {
        case nil:
            return
        case let .pause(since, at, cause):
            guard state == .recording else { return }
            // Never back-date into an earlier pause or before the start.
            let start = max(since, pauses.last?.end ?? stats.startTime, stats.startTime)
            pauseLog.open(PauseInterval(start: start, end: .nan, detectedAt: at, automatic: true))
            state = .autoPaused
            stats.speed = 0
            refreshTimes()
            emit(.event(SessionEvent(kind: .autopause, time: start, detectedAt: at, cause: cause.rawValue, state: state)))
        case let .resume(since, at, cause):
            guard state == .autoPaused else { return }
            let open = pauses.last?.start ?? since
            pauseLog.close(at: max(since, open))
            state = .recording
            shaper.resume(at: max(since, open), segmentBreak: false)
            refreshTimes()
            emit(.event(SessionEvent(kind: .autoresume, time: max(since, open), detectedAt: at, cause: cause.rawValue,
                                     state: state)))
        }
    }

    mutating func advanceClock(_ t: Double) {
        if t > now { now = t }
    }

    private mutating func refreshTimes() {
        guard state.isActive, stats.startTime.isFinite else { return }
        stats.elapsed = max(0, now - stats.startTime)
        stats.moving = max(0, stats.elapsed - pauseLog.paused(at: now))
        stats.cadence = state == .recording ? cadence.cadence(at: now) : 0
    }
}
