/// The open session's planned workout as the engine holds it (as it holds
/// its navigator): the runner, when it is told, and its events made the
/// session's own (`workout_step`, `target_low`, `target_high`, `target_ok`,
/// `workout_done`, the step in `SessionEvent.workout`), so that the stream,
/// hooks, the store and `analyze` see them like any other.
///
/// The engine tells it after every command, and from its inputs at most
/// every `interval` seconds: the runner places a step's end between two
/// updates where its time or distance was reached, so more updates buy no
/// precision, and IMU samples at 100 Hz would each pay for one.
public struct SessionWorkout: Sendable {
    public private(set) var runner: WorkoutRunner?
    private var lastUpdate = -Double.infinity
    /// Started and not done: kept apart so that the per-sample check reads a
    /// flag rather than the runner (no copy of its plan per IMU sample).
    private var running = false
    /// Seconds between updates from the inputs (a fix at 1 Hz is one each).
    static let interval = 0.5

    public init() {}

    init(plan: WorkoutPlan?, config: WorkoutConfig) {
        runner = plan.map { WorkoutRunner(plan: $0, config: config) }
    }

    /// A restarted session's workout, from its snapshot and the wearer's
    /// profile; none when the workout no longer resolves with the profile
    /// (its zones changed so that a range is inverted): the run goes on.
    init(restoring s: WorkoutSnapshot?, profile: HeartRateProfile, config: WorkoutConfig) {
        guard let s, let plan = try? WorkoutPlan(s.workout, heartRate: profile) else { return }
        runner = WorkoutRunner(restoring: s.state, plan: plan, config: config)
        noteRunning()
    }

    /// What the store keeps for a restart; nil without a workout.
    public var snapshot: WorkoutSnapshot? {
        runner.map { WorkoutSnapshot(workout: $0.plan.workout, state: $0.state) }
    }

    /// Where the wearer is in the step; nil without a workout or after its end.
    public var progress: WorkoutProgress? { runner?.progress }

    /// True when the inputs should tell the runner again at `t`.
    func isDue(at t: Double) -> Bool {
        running && t - lastUpdate >= Self.interval
    }

    private mutating func noteRunning() {
        running = runner?.isRunning ?? false
    }

    mutating func start(_ x: WorkoutInput, state: SessionState, emit: (EngineOutput) -> Void) {
        guard let steps = runner?.plan.steps.count else { return }
        lastUpdate = x.time
        runner?.start(x) { emit(.event(Self.event($0, state: state, steps: steps))) }
        noteRunning()
    }

    mutating func update(_ x: WorkoutInput, state: SessionState, emit: (EngineOutput) -> Void) {
        guard running, let steps = runner?.plan.steps.count else { return }
        lastUpdate = x.time
        runner?.update(x) { emit(.event(Self.event($0, state: state, steps: steps))) }
        noteRunning()
    }

    mutating func lap(_ x: WorkoutInput, state: SessionState, emit: (EngineOutput) -> Void) {
        guard let steps = runner?.plan.steps.count else { return }
        lastUpdate = x.time
        runner?.lap(x) { emit(.event(Self.event($0, state: state, steps: steps))) }
        noteRunning()
    }

    static func event(_ w: WorkoutEvent, state: SessionState, steps: Int) -> SessionEvent {
        let kind: SessionEventKind = switch w.kind {
        case .workoutStep: .workoutStep
        case .targetLow: .targetLow
        case .targetHigh: .targetHigh
        case .targetOK: .targetOK
        case .workoutDone: .workoutDone
        }
        let alert = w.kind == .targetLow || w.kind == .targetHigh || w.kind == .targetOK
        let info = WorkoutEventInfo(step: w.step, steps: steps, measure: alert ? w.step.target?.measure : nil,
                                    value: alert ? w.value : nil, summary: w.tally)
        return SessionEvent(kind: kind, time: w.time, detectedAt: w.detectedAt, cause: w.cause, state: state,
                            workout: info)
    }
}

/// A running workout as the session's snapshot keeps it: the workout as
/// read (the plan is resolved again on restore) and the runner's state.
public struct WorkoutSnapshot: Sendable, Equatable, Codable {
    public var workout: Workout
    public var state: WorkoutRunnerState

    public init(workout: Workout, state: WorkoutRunnerState) {
        self.workout = workout
        self.state = state
    }
}

extension WorkoutInput {
    /// The engine's figures now, as the runner takes them: speed only with
    /// fresh fixes, cadence only with the IMU, heart rate only while fresh.
    /// Borrowed: an initialiser owns its arguments, so taking the engine
    /// plainly copies it whole (a retain and a release of each of its
    /// buffers) at every update.
    init(_ e: borrowing SessionEngine) {
        let motion: WorkoutMotion = switch e.state {
        case .recording: .moving
        case .autoPaused: .autoPaused
        case .paused, .idle, .stopped: .paused
        }
        self.init(time: e.now, moving: e.stats.moving, distance: e.stats.distance,
                  speed: e.hasGPS ? e.stats.speed : .nan, heartRate: e.heartRate.current(at: e.now) ?? .nan,
                  cadence: e.hasIMU ? e.stats.cadence : .nan, motion: motion)
    }
}
