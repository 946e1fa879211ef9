/// A planned workout as a coach writes it: a name, the sport it is for and
/// its steps in order, where a repeat points back to an earlier step. This
/// is FIT's shape (`workout` and `workout_step` messages): a flat list in
/// which `items[k]` is the file's step `k` (`wkt_step_index`), so that a
/// workout read from a file, written back and shown in a lap keeps its
/// numbering. The text form (`WorkoutText`) makes the same list.
///
/// A `Workout` is what was read; `WorkoutPlan` checks it (`validate()`)
/// and unrolls its repeats into the steps as they are run.
public struct Workout: Sendable, Equatable, Codable {
    public var name: String
    /// The activity it is meant for; nil when the file says none (generic).
    public var sport: Activity?
    public var items: [WorkoutItem]
    /// The workout's description (FIT `wkt_description`).
    public var notes: String?

    public init(name: String, sport: Activity? = nil, items: [WorkoutItem], notes: String? = nil) {
        self.name = name
        self.sport = sport
        self.items = items
        self.notes = notes
    }
}

/// One entry of a workout's list: a step to run, or a repeat of the block
/// of entries from `from` up to (not including) itself, `times` times in all.
public enum WorkoutItem: Sendable, Equatable, Codable {
    case step(WorkoutStep)
    /// FIT `repeat_until_steps_cmplt`: `from` is the message index of the
    /// block's first step (`duration_step`), `times` the total number of
    /// rounds (`repeat_steps`; Garmin Connect writes 6 for "6 ×").
    case repeats(from: Int, times: Int)

    public var step: WorkoutStep? {
        if case let .step(s) = self { return s }
        return nil
    }
}

/// One step: how it ends, what to aim for, how hard it is meant to be.
public struct WorkoutStep: Sendable, Equatable, Codable {
    public var duration: StepDuration
    public var target: StepTarget
    public var intensity: StepIntensity
    public var name: String?
    public var notes: String?

    public init(duration: StepDuration, target: StepTarget = .none, intensity: StepIntensity = .active,
                name: String? = nil, notes: String? = nil) {
        self.duration = duration
        self.target = target
        self.intensity = intensity
        self.name = name
        self.notes = notes
    }
}

/// How a step ends. FIT's calorie and power durations have no input here
/// and are refused by the reader.
public enum StepDuration: Sendable, Equatable, Codable {
    /// Seconds on the step's clock (`StepIntensity.isBreak` says which clock).
    case time(Double)
    /// Metres of the session's moving distance, as the splits count it.
    case distance(Double)
    /// Until the lap command ("lap button pressed").
    case open
    /// Until the heart rate rises above the level (FIT `hr_greater_than`).
    case heartRateAbove(HeartRateLevel)
    /// Until the heart rate falls below the level (FIT `hr_less_than`).
    case heartRateBelow(HeartRateLevel)
}

/// A heart rate as a plan gives it: beats per minute, or a percentage of the
/// wearer's maximum (FIT's `workout_hr`: 0–100 is a percentage, above 100
/// it is bpm + 100), resolved with the wearer's `HeartRateProfile`.
public enum HeartRateLevel: Sendable, Equatable, Codable {
    case bpm(Double)
    case percentOfMax(Double)

    public func bpm(_ profile: HeartRateProfile) -> Double {
        switch self {
        case let .bpm(v): v
        case let .percentOfMax(p): profile.maximum * p / 100
        }
    }
}

/// What a step aims for. Speeds are m/s (a pace band of 3:50–4:00/km is
/// 4.167–4.348 m/s: `low` is the slower end); cadence is steps per minute.
public enum StepTarget: Sendable, Equatable, Codable {
    case none
    case speed(low: Double, high: Double)
    case heartRate(low: HeartRateLevel, high: HeartRateLevel)
    /// Zone 1–5 of the wearer's `HeartRateProfile`.
    case heartRateZone(Int)
    case cadence(low: Double, high: Double)
}

/// How hard a step is meant to be (FIT `intensity`: active 0, rest 1,
/// warmup 2, cooldown 3, recovery 4, interval 5; `other` is read as active).
public enum StepIntensity: String, Sendable, Equatable, Codable, CaseIterable {
    case warmup, active, interval, rest, recovery, cooldown

    /// Rest and recovery are the break between efforts: a timed one runs on
    /// the session's clock whatever the wearer does in it (stand, walk,
    /// jog), so auto-pause does not stretch it; every other step runs on
    /// moving time, as the session's own timer does (`WorkoutRunner`).
    public var isBreak: Bool { self == .rest || self == .recovery }
}
