/// A workout checked and unrolled into the steps as they are run, with its
/// heart rates resolved for the wearer: what `WorkoutRunner` follows and
/// what the events and `STATUS` say about each step.
public struct WorkoutPlan: Sendable, Equatable {
    public let workout: Workout
    public let steps: [PlannedStep]

    /// Steps as run; "10 × (400 m, 200 m)" twice over is 40, a marathon in
    /// 100 m repeats 422. More is a mistake.
    public static let maxSteps = 1000

    /// Checks `workout` (`Workout.validate()`), resolves its heart rates and
    /// zones with `profile` and unrolls its repeats.
    public init(_ workout: Workout, heartRate profile: HeartRateProfile = HeartRateProfile()) throws(WorkoutError) {
        try workout.validate()
        let (innermost, _) = try workout.nesting()
        self.workout = workout
        steps = try Self.unroll(workout.items, innermost: innermost, profile: profile, sport: workout.sport)
    }

    /// Walks the list as a watch does: at a repeat, back to its block's
    /// first step until its rounds are done (a counter per repeat, reset
    /// when it is done so that an enclosing round runs it afresh).
    private static func unroll(_ items: [WorkoutItem], innermost: [Int?], profile: HeartRateProfile,
                               sport: Activity?) throws(WorkoutError) -> [PlannedStep] {
        var done = [Int](repeating: 0, count: items.count)
        var out: [PlannedStep] = []
        var k = 0
        while k < items.count {
            switch items[k] {
            case let .step(s):
                guard out.count < maxSteps else {
                    throw WorkoutError("the workout runs to more than \(maxSteps) steps")
                }
                let round = innermost[k].map { done[$0] + 1 } ?? 1
                let rounds = innermost[k].flatMap { r -> Int? in
                    if case let .repeats(_, times) = items[r] { return times }
                    return nil
                } ?? 1
                out.append(try PlannedStep(s, index: out.count, wktStepIndex: k, round: round, rounds: rounds,
                                           profile: profile))
                k += 1
            case let .repeats(from, times):
                done[k] += 1
                if done[k] < times {
                    k = from
                } else {
                    done[k] = 0
                    k += 1
                }
            }
        }
        return out
    }
}

/// One step as it is run: its place (`index`, 0-based with repeats
/// unrolled; `wktStepIndex`, the file's step; `round` of `rounds` of the
/// innermost repeat around it, 1 of 1 outside repeats), how it ends and its
/// target in the wearer's numbers. This is the `workout` part of a
/// `workout_step` event and of `STATUS`.
public struct PlannedStep: Sendable, Equatable, Codable {
    public var index: Int
    public var wktStepIndex: Int
    public var round: Int
    public var rounds: Int
    public var name: String?
    public var notes: String?
    public var intensity: StepIntensity
    public var end: StepEnd
    public var target: TargetBand?

    public init(index: Int, wktStepIndex: Int, round: Int = 1, rounds: Int = 1, name: String? = nil,
                notes: String? = nil, intensity: StepIntensity, end: StepEnd, target: TargetBand? = nil) {
        self.index = index
        self.wktStepIndex = wktStepIndex
        self.round = round
        self.rounds = rounds
        self.name = name
        self.notes = notes
        self.intensity = intensity
        self.end = end
        self.target = target
    }

    init(_ s: WorkoutStep, index: Int, wktStepIndex: Int, round: Int, rounds: Int,
         profile: HeartRateProfile) throws(WorkoutError) {
        let here = wktStepIndex + 1
        let end: StepEnd = switch s.duration {
        case let .time(t): .time(t)
        case let .distance(d): .distance(d)
        case .open: .lap
        case let .heartRateAbove(level): .heartRateAbove(level.bpm(profile))
        case let .heartRateBelow(level): .heartRateBelow(level.bpm(profile))
        }
        self.init(index: index, wktStepIndex: wktStepIndex, round: round, rounds: rounds, name: s.name, notes: s.notes,
                  intensity: s.intensity, end: end, target: try TargetBand(s.target, profile: profile, step: here))
    }

    /// The clock a timed step runs on: the session's (less manual pauses)
    /// for a break, moving time otherwise (`StepIntensity.isBreak`).
    public var runsOnSessionClock: Bool { intensity.isBreak }

    private enum CodingKeys: String, CodingKey {
        case index, wktStepIndex = "wkt_step_index", round = "repeat", rounds = "repeats", name, notes, intensity,
             end, target
    }
}

/// How a step as run ends, in the wearer's numbers.
public enum StepEnd: Sendable, Equatable, Codable {
    /// Seconds on the step's clock.
    case time(Double)
    /// Metres of moving distance.
    case distance(Double)
    /// The lap command.
    case lap
    /// Heart rate above / below, bpm.
    case heartRateAbove(Double)
    case heartRateBelow(Double)

    /// The word on the wire and in the lap's trigger: time, distance, lap, hr_above, hr_below.
    public var kind: String {
        switch self {
        case .time: "time"
        case .distance: "distance"
        case .lap: "lap"
        case .heartRateAbove: "hr_above"
        case .heartRateBelow: "hr_below"
        }
    }

    /// Its number: seconds, metres or bpm; nil for the lap command.
    public var value: Double? {
        switch self {
        case let .time(v), let .distance(v), let .heartRateAbove(v), let .heartRateBelow(v): v
        case .lap: nil
        }
    }

    private enum CodingKeys: String, CodingKey { case kind, value }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try c.decode(String.self, forKey: .kind)
        let v = try c.decodeIfPresent(Double.self, forKey: .value) ?? .nan
        switch kind {
        case "time": self = .time(v)
        case "distance": self = .distance(v)
        case "lap": self = .lap
        case "hr_above": self = .heartRateAbove(v)
        case "hr_below": self = .heartRateBelow(v)
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown step end \(kind)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(value, forKey: .value)
    }
}
