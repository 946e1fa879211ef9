/// Runs a planned workout during a session, fed by the engine as the course
/// navigator is, with the session's own figures (`WorkoutInput`); it raises
/// `workout_step`, `target_low`, `target_high`, `target_ok` and `workout_done`.
/// A step ends by its time, by moving distance (the splits' count; a stop in
/// its last 3 % ends it there), by heart rate held 3 s, or by the lap command;
/// an end between two updates is placed where it was reached, so steps do not
/// drift. Effort steps run on moving time, breaks on the session's clock (a
/// standing rest is not stalled by auto-pause), a manual pause holds both.
/// Alerts are `TargetWatch`'s, with `WorkoutConfig`'s cross-validated numbers.
/// Why each rule: docs/algorithms.md, "Workouts". The state is Codable, so a
/// restart carries on in the same step with its time and distance.
/// O(1) per update, no allocation; time only from the inputs.
public struct WorkoutRunner: Sendable {
    public let plan: WorkoutPlan
    public let config: WorkoutConfig
    public private(set) var state = WorkoutRunnerState()
    /// The previous update; nil until the first (after a start or a restore).
    private var last: WorkoutInput?
    /// What each update reads of the step being run, taken when it begins:
    /// its fields, not the step (whose copy retains and releases its name
    /// and notes), and not looked up in the plan at every update.
    private var rule: StepRule

    public init(plan: WorkoutPlan, config: WorkoutConfig = WorkoutConfig()) {
        self.plan = plan
        self.config = config
        rule = StepRule(plan.steps.first)
    }

    /// Carries on from a snapshot of the same plan (a step beyond the plan
    /// ends the workout).
    public init(restoring s: WorkoutRunnerState, plan: WorkoutPlan, config: WorkoutConfig = WorkoutConfig()) {
        self.init(plan: plan, config: config)
        state = s
        if state.index >= plan.steps.count { state.done = true }
        state.watch.movingSince = nil
        rule = StepRule(state.done ? nil : plan.steps[state.index])
    }

    /// Started and not yet done.
    public var isRunning: Bool { state.started && !state.done }

    /// The step being run; nil before the start and after the last.
    public var current: PlannedStep? {
        isRunning ? plan.steps[state.index] : nil
    }

    /// Begins the first step with the session's figures at its start.
    public mutating func start(_ x: WorkoutInput, emit: (WorkoutEvent) -> Void) {
        guard !state.started else { return }
        state = WorkoutRunnerState()
        state.started = true
        state.stepBegan = x.time
        last = x
        emit(WorkoutEvent(kind: .workoutStep, time: x.time, detectedAt: x.time, cause: "start", step: plan.steps[0]))
    }

    /// One update with the session's figures now.
    public mutating func update(_ x: WorkoutInput, emit: (WorkoutEvent) -> Void) {
        guard state.started, !state.done else { return }
        guard let before = last, x.time >= before.time else {
            last = x
            return
        }
        last = x
        let dt = x.time - before.time
        smooth(x, before: before, dt: dt)
        let held = before.motion == .paused
        if x.distance > before.distance { state.lastGrowth = x.time }
        if before.motion == .moving && x.motion != .moving {
            // Auto-pause is decided late and back-dated: the moving time it took back says since when.
            state.stoppedAt = min(x.time, before.time - max(0, before.moving - x.moving))
        }
        // Below a walk since the last update that was not: the wearer stopped after it.
        state.slowSince = x.speed < config.stillSpeed ? (state.slowSince ?? before.time) : nil
        advance(from: before, to: x, held: held, emit: emit)
        guard !state.done else { return }
        if state.nearMark == nil, case let .distance(d) = rule.end, d - state.distance <= markSlack(d) {
            state.nearMark = before.time
        }
        if x.motion != .moving {
            stoppedAtTheMark(x, at: state.stoppedAt ?? state.lastGrowth ?? x.time, emit: emit)
        } else if let slow = state.slowSince, x.time - slow >= config.standingAfter {
            stoppedAtTheMark(x, at: slow, emit: emit)
        }
        guard !state.done else { return }
        if !held { heartRateEnd(x, dt: dt, emit: emit) }
        guard !state.done else { return }
        judge(x, before: before, dt: dt, emit: emit)
    }

    /// The lap command at the update `x`: ends the step being run.
    public mutating func lap(_ x: WorkoutInput, emit: (WorkoutEvent) -> Void) {
        update(x, emit: emit)
        guard state.started, !state.done else { return }
        next(at: x.time, detectedAt: x.time, cause: "lap", emit: emit)
    }

    /// Where the wearer is in the current step; nil before the start and after the last.
    public var progress: WorkoutProgress? {
        guard let step = current else { return nil }
        let remaining: Double? = switch step.end {
        case let .time(t): max(0, t - state.clock)
        case let .distance(d): max(0, d - state.distance)
        case .lap, .heartRateAbove, .heartRateBelow: nil
        }
        let value = step.target.flatMap { state.watch.value($0.measure, at: last?.time ?? 0, config: config) }
        let position = step.target.flatMap { band in value.map { band.position(of: $0) } }
        let alert: WorkoutEventKind? = state.watch.alerted.map { $0 == .low ? .targetLow : .targetHigh }
        return WorkoutProgress(step: step, count: plan.steps.count, elapsed: state.clock, distance: state.distance,
                               remaining: remaining, value: value, position: position, alert: alert)
    }

    // MARK: Steps

    /// Adds the update's time and distance to the step, ending it (and the
    /// steps after it, on a long update) where its time or distance is reached.
    /// The update's moving time is the latest of its wall time: a resume is
    /// decided late and back-dated, so moving time can grow by more than the
    /// update lasted, and the part before a step began (a rest's last seconds,
    /// when the wearer set off before its clock ran out) is not the step's.
    private mutating func advance(from a: WorkoutInput, to b: WorkoutInput, held: Bool,
                                  emit: (WorkoutEvent) -> Void) {
        let dt = b.time - a.time, dMoving = b.moving - a.moving, dDistance = max(0, b.distance - a.distance)
        var from = a.time, began = state.stepBegan ?? -Double.infinity
        while !state.done {
            let left = dt > 0 ? (b.time - from) / dt : (from == a.time ? 1 : 0)
            // A step's moving time never outgrows the wall time since it began.
            let moving = dMoving >= 0 ? min(dMoving, max(0, b.time - began - state.clock)) : dMoving * left
            let increment = held ? 0 : (rule.intensity.isBreak ? b.time - from : moving)
            let moved = dDistance * left
            let c0 = state.clock, d0 = state.distance
            state.clock = max(0, c0 + increment)
            state.distance = d0 + moved
            // Where in the update the step's end falls, and the share of the increment it used.
            let reached: (end: Double, share: Double, cause: String)? = switch rule.end {
            case let .time(t) where state.clock >= t:
                increment > 0 ? (b.time - increment + (t - c0), (t - c0) / increment, "time") : (from, 0, "time")
            case let .distance(d) where state.distance >= d:
                moved > 0 ? (from + (d - d0) / moved * (b.time - from), (d - d0) / moved, "distance")
                    : (from, 0, "distance")
            default: nil
            }
            let share = reached.map { min(1, max(0, $0.share)) } ?? 1
            if rule.intensity.isEffort {
                state.tally.activeMoving += (held ? 0 : moving) * share
                state.tally.activeDistance += moved * share
            }
            guard let reached else { return }
            let end = min(b.time, max(from, reached.end))
            next(at: end, detectedAt: b.time, cause: reached.cause, emit: emit)
            from = end
            began = end
        }
    }

    /// A distance step the wearer stops within its last `stopAtMark` of ends
    /// where the wearer stopped, `stopped`: the pause's back-dated start, else
    /// where the distance stopped growing, or, before auto-pause decides, where
    /// the speed fell to a stand. GPS counts a lap of a track 1–2 % short (the
    /// filter cuts the bends), and its distance creeps on for a few seconds
    /// after a stop; a runner who stands at the line has run the repeat, and
    /// waiting for the last metres would hold the rest until the next repeat.
    /// A stop from before the step came that near is none: the wearer moved
    /// on since (a walker slower than a stand's speed all along).
    private mutating func stoppedAtTheMark(_ x: WorkoutInput, at stopped: Double, emit: (WorkoutEvent) -> Void) {
        guard case let .distance(d) = rule.end, d - state.distance <= markSlack(d),
              let near = state.nearMark, stopped >= near else { return }
        let end = max(min(stopped, x.time), state.stepBegan ?? -.infinity)
        next(at: end, detectedAt: x.time, cause: "distance", emit: emit)
        if let now = current, now.runsOnSessionClock, !state.done, x.motion != .paused { state.clock = x.time - end }
    }

    /// How far short of a distance step's mark a stop ends it, m.
    private func markSlack(_ d: Double) -> Double {
        max(config.stopAtMarkMetres, config.stopAtMark * d)
    }

    /// Ends a step whose heart rate has stayed beyond its level for `hrHold` seconds.
    private mutating func heartRateEnd(_ x: WorkoutInput, dt: Double, emit: (WorkoutEvent) -> Void) {
        let beyond: Bool? = switch rule.end {
        case let .heartRateAbove(v): x.heartRate.isFinite && x.heartRate > v
        case let .heartRateBelow(v): x.heartRate.isFinite && x.heartRate < v
        default: nil
        }
        guard let beyond else { return }
        state.hrHeld = beyond ? state.hrHeld + dt : 0
        if state.hrHeld >= config.hrHold { next(at: x.time, detectedAt: x.time, cause: "hr", emit: emit) }
    }

    /// The current step ends at `t`: the next begins, or the workout is done.
    private mutating func next(at t: Double, detectedAt: Double, cause: String, emit: (WorkoutEvent) -> Void) {
        let ended = plan.steps[state.index]
        if cause == "lap", ended.end != .lap {
            state.tally.skipped += 1
        } else {
            state.tally.completed += 1
        }
        state.index += 1
        state.stepBegan = t
        state.clock = 0
        state.distance = 0
        state.hrHeld = 0
        state.nearMark = nil
        state.watch.stepChanged()
        guard state.index < plan.steps.count else {
            state.done = true
            emit(WorkoutEvent(kind: .workoutDone, time: t, detectedAt: detectedAt, cause: cause, step: ended,
                              tally: state.tally))
            return
        }
        rule = StepRule(plan.steps[state.index])
        emit(WorkoutEvent(kind: .workoutStep, time: t, detectedAt: detectedAt, cause: cause,
                          step: plan.steps[state.index]))
    }

    // MARK: Alerts

    /// Notes when the wearer stops and sets off again, and smooths the
    /// measures; speed and cadence only past the change of pace that begins
    /// a step or a setting off (`settle` seconds of each).
    private mutating func smooth(_ x: WorkoutInput, before: WorkoutInput, dt: Double) {
        let moving = x.motion == .moving && before.motion == .moving && !(x.speed < config.stillSpeed)
        if !moving {
            if state.watch.movingSince != nil { state.watch.restartPace() }
            state.watch.movingSince = nil
        } else if state.watch.movingSince == nil {
            state.watch.movingSince = before.time
        }
        let sinceMoving = x.time - (state.watch.movingSince ?? x.time)
        let settled = moving && state.clock >= config.settle && sinceMoving >= config.settle
        state.watch.smooth(x, measure: rule.target?.measure, dt: dt, settled: settled, config: config)
    }

    private mutating func judge(_ x: WorkoutInput, before: WorkoutInput, dt: Double, emit: (WorkoutEvent) -> Void) {
        let step = rule
        guard let band = step.target, step.intensity != .rest else { return }
        // The part of this update past the graces. Pace and cadence: the step's, on its clock, and the
        // setting off's, and only while going faster than `stillSpeed` (GPS speed at a stop is noise).
        // Heart rate comes from the strap, not from GPS: it is judged whenever the session is not
        // stopped, a slow walk included, past its own longer grace.
        let judged: Double, moving: Bool
        if band.measure == .hr {
            judged = min(dt, state.clock - config.hrStepGrace)
            moving = x.motion == .moving
        } else {
            let sinceMoving = x.time - (state.watch.movingSince ?? x.time)
            judged = min(dt, state.clock - config.stepGrace, sinceMoving - config.resumeGrace)
            moving = state.watch.movingSince != nil
        }
        let value = state.watch.value(band.measure, at: x.time, config: config)
        if moving, judged > 0, let value, !step.intensity.isBreak {
            state.tally.targetSeconds += judged
            if value >= band.low && value <= band.high { state.tally.inTargetSeconds += judged }
        }
        guard let kind = state.watch.judge(band, value: value, dt: judged, at: x.time, settled: moving && judged >= 0,
                                           config: config) else { return }
        emit(WorkoutEvent(kind: kind, time: x.time, detectedAt: x.time, cause: band.measure.rawValue,
                          step: plan.steps[state.index], value: value))
    }
}

/// What a restart needs of a running workout (the plan itself is rebuilt
/// from the stored workout): the step, its clock and distance, the heart
/// rate's hold, and the alerts' state.
public struct WorkoutRunnerState: Sendable, Equatable, Codable {
    public var started = false
    public var done = false
    /// The step being run, 0-based with repeats unrolled.
    public var index = 0
    /// Seconds on the step's clock, metres since it began.
    public var clock = 0.0
    public var distance = 0.0
    /// Seconds the heart rate has stayed beyond a heart-rate end.
    var hrHeld = 0.0
    /// When the session's moving distance last grew, and when the wearer last stopped.
    var lastGrowth: Double?
    var stoppedAt: Double?
    /// When the step began: the moving time a late resume back-dates before it is not the step's.
    var stepBegan: Double?
    /// Since when the speed has been below a walk (`WorkoutConfig.stillSpeed`).
    var slowSince: Double?
    /// The last update before a distance step came within its mark's slack.
    var nearMark: Double?
    var watch = TargetWatch()
    /// What the end's summary says, so far.
    public var tally = WorkoutTally()

    public init() {}

    private enum CodingKeys: String, CodingKey {
        case started, done, index, clock = "clock_s", distance = "distance_m", hrHeld = "hr_held_s",
             lastGrowth = "last_growth", stoppedAt = "stopped_at", stepBegan = "step_began",
             slowSince = "slow_since", nearMark = "near_mark", watch, tally
    }
}

/// The fields of a planned step the runner reads at every update.
private struct StepRule {
    var end: StepEnd
    var intensity: StepIntensity
    var target: TargetBand?

    /// A step's rule; an open step without a target for none (a plan is never empty).
    init(_ step: PlannedStep?) {
        end = step?.end ?? .lap
        intensity = step?.intensity ?? .active
        target = step?.target
    }
}
