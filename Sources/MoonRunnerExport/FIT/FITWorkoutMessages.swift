import FoundationEssentials
import MoonRunnerCore

/// A workout as FIT's `workout` (26) and `workout_step` (27) messages, the
/// mirror of `FITWorkoutReader`: on its own as a workout file (`file_id`
/// type workout), or inside an activity so that Garmin Connect and
/// intervals.icu see the plan the laps were run to. Scales as the reader's.
public enum FITWorkoutWriter {
    /// A FIT workout file; `created` is its UNIX time (nil: unknown).
    public static func file(_ workout: Workout, created: Double? = nil) -> Data {
        var fit = FITEncoder(capacity: 128 + workout.items.count * 64)
        fit.define(local: 0, global: FITProfile.Message.fileID, fields: [
            .init(number: 0, type: .enumeration),   // type
            .init(number: 1, type: .uint16),        // manufacturer
            .init(number: 2, type: .uint16),        // product
            .init(number: 4, type: .uint32),        // time_created
        ])
        fit.begin(local: 0)
        fit.enumeration(FITProfile.FileType.workout)
        fit.uint16(FITProfile.Manufacturer.development)
        fit.uint16(1)
        fit.uint32(created.map { FITProfile.timestamp($0) } ?? FITEncoder.invalidUInt32)
        write(workout, into: &fit, workoutLocal: 1, stepLocal: 2)
        return fit.file(profileVersion: FITProfile.version)
    }

    /// The `workout` message and one `workout_step` per item, as local types
    /// `workoutLocal` and `stepLocal`.
    static func write(_ workout: Workout, into fit: inout FITEncoder, workoutLocal: UInt8, stepLocal: UInt8) {
        let nameSize = stringSize(workout.name, cap: 100), notesSize = stringSize(workout.notes ?? "", cap: 200)
        fit.define(local: workoutLocal, global: FITProfile.Message.workout, fields: [
            .init(number: 4, type: .enumeration),   // sport
            .init(number: 11, type: .enumeration),  // sub_sport
            .init(number: 6, type: .uint16),        // num_valid_steps
            .init(number: 8, type: .string, count: nameSize),     // wkt_name
            .init(number: 17, type: .string, count: notesSize),   // wkt_description
        ])
        fit.begin(local: workoutLocal)
        fit.enumeration(workout.sport?.profile.sport.fitSport ?? 0)
        fit.enumeration(workout.sport?.profile.sport.fitSubSport ?? 0)
        fit.uint16(UInt16(clamping: workout.items.count))
        fit.string(workout.name, size: nameSize)
        fit.string(workout.notes ?? "", size: notesSize)

        let steps = workout.items.compactMap(\.step)
        let stepName = steps.map { stringSize($0.name ?? "", cap: 100) }.max() ?? 1
        let stepNotes = steps.map { stringSize($0.notes ?? "", cap: 200) }.max() ?? 1
        fit.define(local: stepLocal, global: FITProfile.Message.workoutStep, fields: [
            .init(number: FITProfile.Common.messageIndex, type: .uint16),
            .init(number: 0, type: .string, count: stepName),     // wkt_step_name
            .init(number: 1, type: .enumeration),   // duration_type
            .init(number: 2, type: .uint32),        // duration_value
            .init(number: 3, type: .enumeration),   // target_type
            .init(number: 4, type: .uint32),        // target_value
            .init(number: 5, type: .uint32),        // custom_target_value_low
            .init(number: 6, type: .uint32),        // custom_target_value_high
            .init(number: 7, type: .enumeration),   // intensity
            .init(number: 8, type: .string, count: stepNotes),    // notes
        ])
        let perFoot = workout.sport != .ride
        for (k, item) in workout.items.enumerated() {
            fit.begin(local: stepLocal)
            fit.uint16(UInt16(clamping: k))
            let step = item.step
            fit.string(step?.name ?? "", size: stepName)
            let (durationType, durationValue) = duration(item)
            fit.enumeration(durationType)
            fit.uint32(durationValue)
            let t = target(item, perFoot: perFoot)
            fit.enumeration(t.type)
            fit.uint32(t.value)
            fit.uint32(t.low)
            fit.uint32(t.high)
            fit.enumeration(step.map { intensity($0.intensity) } ?? FITEncoder.invalidUInt8)
            fit.string(step?.notes ?? "", size: stepNotes)
        }
    }

    /// Bytes of a string field that holds `text` (cut at `cap`) and its NUL.
    private static func stringSize(_ text: String, cap: Int) -> UInt8 {
        UInt8(min(cap, text.utf8.count + 1))
    }

    /// `duration_type` and `duration_value`.
    private static func duration(_ item: WorkoutItem) -> (UInt8, UInt32) {
        switch item {
        case let .repeats(from, _): (6, UInt32(clamping: from))
        case let .step(s):
            switch s.duration {
            case let .time(t): (0, FITProfile.scaled32(t, 1000))
            case let .distance(d): (1, FITProfile.scaled32(d, 100))
            case let .heartRateBelow(level): (2, workoutHR(level))
            case let .heartRateAbove(level): (3, workoutHR(level))
            case .open: (5, FITEncoder.invalidUInt32)
            }
        }
    }

    /// `target_type`, `target_value` (a zone, or a repeat's rounds) and the custom range.
    private static func target(_ item: WorkoutItem, perFoot: Bool) -> (type: UInt8, value: UInt32, low: UInt32, high: UInt32) {
        let invalid = FITEncoder.invalidUInt32
        switch item {
        case let .repeats(_, times): return (FITEncoder.invalidUInt8, UInt32(clamping: times), invalid, invalid)
        case let .step(s):
            switch s.target {
            case .none: return (2, invalid, invalid, invalid)
            case let .speed(low, high): return (0, 0, FITProfile.scaled32(low, 1000), FITProfile.scaled32(high, 1000))
            case let .heartRate(low, high): return (1, 0, workoutHR(low), workoutHR(high))
            case let .heartRateZone(z): return (1, UInt32(clamping: z), invalid, invalid)
            case let .cadence(low, high):
                let scale = perFoot ? 0.5 : 1
                return (3, 0, FITProfile.scaled32(low, scale), FITProfile.scaled32(high, scale))
            }
        }
    }

    /// FIT's `workout_hr`: a percentage as it is, bpm + 100.
    private static func workoutHR(_ level: HeartRateLevel) -> UInt32 {
        switch level {
        case let .percentOfMax(p): FITProfile.scaled32(min(p, 100), 1)
        case let .bpm(v): FITProfile.scaled32(v, 1, offset: 100)
        }
    }

    /// FIT's `intensity` of a step (also a lap's, in an activity).
    static func intensity(_ i: StepIntensity) -> UInt8 {
        switch i {
        case .active: 0
        case .rest: 1
        case .warmup: 2
        case .cooldown: 3
        case .recovery: 4
        case .interval: 5
        }
    }
}
