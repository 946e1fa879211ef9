import MoonRunnerCore

/// FIT workout files as Garmin Connect, TrainingPeaks and intervals.icu
/// export them: `file_id` of type workout (5), the `workout` message (name,
/// sport, description) and its `workout_step`s in `message_index` order.
/// Scales and meanings from Garmin's FIT profile (`workout_step`):
/// `duration_time` ms, `duration_distance` cm, `duration_hr` and the custom
/// heart rates as `workout_hr` (0–100: % of the maximum; above 100: bpm + 100),
/// `custom_target_speed_*` mm/s, `target_value` a zone for heart rate (0:
/// the custom range), `repeat_until_steps_cmplt` with `duration_step` (the
/// block's first step) and `repeat_steps` (the rounds). Cadence is per foot
/// on foot (strides/min, as FIT records carry it) and is doubled to steps.
/// What MoonRunner cannot follow (calories, power, speed zones, repeats
/// until a time) is refused with its reason rather than run wrongly.
enum FITWorkoutReader {
    /// `file_id.type` names, for the refusal of a file that is another kind.
    static let fileTypes: [UInt64: String] = [1: "device", 2: "settings", 3: "sport", 4: "activity", 5: "workout",
                                               6: "course", 7: "schedules", 9: "weight", 10: "totals", 11: "goals",
                                               14: "blood_pressure", 15: "monitoring", 20: "activity_summary",
                                               28: "monitoring_daily", 32: "monitoring", 34: "segment",
                                               35: "segment_list"]

    static func read(_ data: [UInt8]) throws(WorkoutFileError) -> Workout {
        var fit = FITDecoder(data)
        var type: UInt64?
        var name: String?, notes: String?
        var sport: Activity?
        var numbered: [(index: Int, item: WorkoutItem)] = []
        while let m = try next(&fit) {
            switch m.global {
            case 0 where type == nil:
                type = m.uint(0) ?? 0
            case 26:
                name = name ?? m.string(8)
                notes = notes ?? m.string(17)
                sport = sport ?? m.uint(4).flatMap { Self.activity(sport: $0, subSport: m.uint(11) ?? 0) }
            case 27:
                guard numbered.count < Workout.maxItems else {
                    throw WorkoutFileError("FIT: more than \(Workout.maxItems) workout steps")
                }
                numbered.append((m.uint(254).map { Int($0) } ?? numbered.count, try step(m)))
            default:
                break
            }
        }
        guard let type else { throw WorkoutFileError("not a workout file: it has no file_id") }
        guard type == 5 else { throw WorkoutFileError("not a workout file: file_id type \(fileTypes[type] ?? String(type))") }
        let items = try ordered(numbered)
        // Cadence is per foot in FIT on foot; a ride's is the crank's, as it is.
        let fixed = sport == .ride ? items.map(Self.undoubled) : items
        return Workout(name: name ?? "", sport: sport, items: fixed, notes: notes)
    }

    private static func next(_ fit: inout FITDecoder) throws(WorkoutFileError) -> FITMessage? {
        do throws(FITReadError) {
            return try fit.next()
        } catch {
            throw WorkoutFileError(error.message)
        }
    }

    /// The steps by their message index, which must number them 0, 1, 2, …
    private static func ordered(_ numbered: [(index: Int, item: WorkoutItem)]) throws(WorkoutFileError) -> [WorkoutItem] {
        let sorted = numbered.sorted { $0.index < $1.index }
        for (k, s) in sorted.enumerated() where s.index != k {
            throw WorkoutFileError(k < s.index ? "FIT: workout step \(k + 1) is missing (the steps jump to \(s.index + 1))"
                                               : "FIT: two workout steps are numbered \(s.index + 1)")
        }
        return sorted.map(\.item)
    }

    /// FIT `sport` (and `sub_sport`) as the activity a workout is meant for; nil for any other.
    static func activity(sport: UInt64, subSport: UInt64) -> Activity? {
        switch sport {
        case 1: subSport == 3 ? .trailRun : .run
        case 2: .ride
        case 11: .walk
        case 17: .hike
        default: nil
        }
    }

    private static func undoubled(_ item: WorkoutItem) -> WorkoutItem {
        guard case var .step(s) = item, case let .cadence(low, high) = s.target else { return item }
        s.target = .cadence(low: low / 2, high: high / 2)
        return .step(s)
    }

    // MARK: One step

    private static func step(_ m: FITMessage) throws(WorkoutFileError) -> WorkoutItem {
        let here = (m.uint(254).map { Int($0) } ?? 0) + 1
        let value = m.uint(2)
        let duration: StepDuration
        switch m.uint(1) ?? 0 {
        case 0: duration = .time(value.map { Double($0) / 1000 } ?? .nan)
        case 1: duration = .distance(value.map { Double($0) / 100 } ?? .nan)
        case 2: duration = .heartRateBelow(level(value))
        case 3: duration = .heartRateAbove(level(value))
        case 5: duration = .open
        case 6:
            guard let from = value else { throw WorkoutFileError("FIT: step \(here): a repeat that points nowhere") }
            let times = m.uint(4).map { Int(min($0, 1_000_000)) } ?? 0
            return .repeats(from: Int(min(from, 1_000_000)), times: times)
        case let d:
            throw WorkoutFileError("FIT: step \(here): \(unsupportedDuration(d))")
        }
        let target = try self.target(m, step: here)
        let intensity: StepIntensity = switch m.uint(7) ?? 0 {
        case 1: .rest
        case 2: .warmup
        case 3: .cooldown
        case 4: .recovery
        case 5: .interval
        default: .active
        }
        return .step(WorkoutStep(duration: duration, target: target, intensity: intensity, name: m.string(0),
                                 notes: m.string(8)))
    }

    /// FIT's `workout_hr`: 0–100 % of the maximum, above 100 bpm + 100; NaN bpm when absent.
    private static func level(_ v: UInt64?) -> HeartRateLevel {
        guard let v else { return .bpm(.nan) }
        return v <= 100 ? .percentOfMax(Double(v)) : .bpm(Double(v) - 100)
    }

    private static func target(_ m: FITMessage, step here: Int) throws(WorkoutFileError) -> StepTarget {
        let zone = m.uint(4) ?? 0
        let low = m.uint(5), high = m.uint(6)
        switch m.uint(3) {
        case nil, 2?:
            return .none
        case 0?:
            guard zone == 0 else {
                throw WorkoutFileError("FIT: step \(here): speed zone \(zone) (MoonRunner has no speed zones; give the pace as a range)")
            }
            return .speed(low: low.map { Double($0) / 1000 } ?? .nan, high: high.map { Double($0) / 1000 } ?? .nan)
        case 1?:
            return zone == 0 ? .heartRate(low: level(low), high: level(high)) : .heartRateZone(Int(min(zone, 99)))
        case 3?:
            guard zone == 0 else { throw WorkoutFileError("FIT: step \(here): cadence zone \(zone) (give the cadence as a range)") }
            return .cadence(low: low.map { Double($0) * 2 } ?? .nan, high: high.map { Double($0) * 2 } ?? .nan)
        case let t?:
            let what = [4, 7, 8, 9, 10].contains(t) ? "a power target, and MoonRunner has no power meter"
                : "target type \(t), which MoonRunner cannot follow"
            throw WorkoutFileError("FIT: step \(here): \(what)")
        }
    }

    private static func unsupportedDuration(_ d: UInt64) -> String {
        switch d {
        case 4: "ends after a number of calories, which MoonRunner does not count as it goes"
        case 7, 8, 9, 10, 11, 12, 13: "a repeat until a time, distance, calories, heart rate or power (only a number of rounds is run)"
        case 14, 15, 19...26: "ends at a power, and MoonRunner has no power meter"
        case 28, 29: "counts repetitions (strength training)"
        default: "duration type \(d), which MoonRunner cannot follow"
        }
    }
}
