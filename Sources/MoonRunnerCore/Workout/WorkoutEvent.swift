/// What the engine tells the workout runner at each update: the same
/// figures the session counts, at engine time `time`.
public struct WorkoutInput: Sendable, Equatable {
    public var time: Double
    /// The session's moving time so far, s (auto-pauses back-dated as the
    /// engine decides them, so it may step back by a few seconds).
    public var moving: Double
    /// The session's moving distance so far, m, as the splits count it.
    public var distance: Double
    /// The current (filtered) speed, m/s; NaN when unknown.
    public var speed: Double
    /// The current heart rate, bpm; NaN without a strap or a fresh reading.
    public var heartRate: Double
    /// The current cadence, steps/min; NaN when unknown.
    public var cadence: Double
    public var motion: WorkoutMotion

    public init(time: Double, moving: Double, distance: Double, speed: Double = .nan, heartRate: Double = .nan,
                cadence: Double = .nan, motion: WorkoutMotion = .moving) {
        self.time = time
        self.moving = moving
        self.distance = distance
        self.speed = speed
        self.heartRate = heartRate
        self.cadence = cadence
        self.motion = motion
    }
}

/// The session's state as the runner needs it (`SessionState` narrowed).
public enum WorkoutMotion: String, Sendable, Equatable, Codable {
    case moving
    /// Stopped by auto-pause: a break's clock runs on, a moving step's waits.
    case autoPaused = "auto_paused"
    /// Paused by the wearer: every clock of the workout waits.
    case paused
}

/// The kinds of workout event, as their wire names.
public enum WorkoutEventKind: String, Sendable, Equatable, Codable, CaseIterable {
    /// A step begins (the first at the start).
    case workoutStep = "workout_step"
    /// The target's measure has been below / above the band for a while.
    case targetLow = "target_low", targetHigh = "target_high"
    /// Back in the band after an alert.
    case targetOK = "target_ok"
    /// The last step ended.
    case workoutDone = "workout_done"
}

/// A workout event: when it happened (a step's end placed between updates
/// where the time or distance was reached), when it was decided, why, and
/// the step it is about (the step begun, the step whose target was left,
/// or for `workout_done` the last step).
public struct WorkoutEvent: Sendable, Equatable {
    public var kind: WorkoutEventKind
    public var time: Double
    public var detectedAt: Double
    /// `workout_step` and `workout_done`: how the step before ended (start,
    /// time, distance, lap, hr). Alerts: the measure (pace, hr, cadence).
    public var cause: String
    public var step: PlannedStep
    /// Alerts: the smoothed measure when decided (m/s, bpm, steps/min).
    public var value: Double?
    /// `workout_done`: the whole workout's tally, for its summary.
    public var tally: WorkoutTally?

    public init(kind: WorkoutEventKind, time: Double, detectedAt: Double, cause: String, step: PlannedStep,
                value: Double? = nil, tally: WorkoutTally? = nil) {
        self.kind = kind
        self.time = time
        self.detectedAt = detectedAt
        self.cause = cause
        self.step = step
        self.value = value
        self.tally = tally
    }
}

/// Where the wearer is in the current step, for `STATUS` and the phone.
public struct WorkoutProgress: Sendable, Equatable {
    public var step: PlannedStep
    /// Steps as run (the N of "n of N"; n is `step.index + 1`).
    public var count: Int
    /// Seconds on the step's clock, metres of moving distance since it began.
    public var elapsed: Double
    public var distance: Double
    /// What is left: seconds for a timed step, metres for a distance step,
    /// nil for a step that ends at the lap command or a heart rate.
    public var remaining: Double?
    /// The target's measure now (smoothed, as the alerts see it), and
    /// where it lies in the band (`TargetBand.position`); nil without a
    /// target or a reading.
    public var value: Double?
    public var position: Double?
    /// The alert standing now (`targetLow`/`targetHigh`), nil when none.
    public var alert: WorkoutEventKind?

    public init(step: PlannedStep, count: Int, elapsed: Double, distance: Double, remaining: Double?, value: Double?,
                position: Double?, alert: WorkoutEventKind?) {
        self.step = step
        self.count = count
        self.elapsed = elapsed
        self.distance = distance
        self.remaining = remaining
        self.value = value
        self.position = position
        self.alert = alert
    }
}
