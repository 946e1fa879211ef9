/// What a workout event says of its step, as `SessionEvent.workout`: the
/// step as run (`index`, `wkt_step_index`, `repeat` of `repeats`, name,
/// intensity, how it ends, target), how many steps the workout runs, and
/// for `target_low`/`target_high`/`target_ok` the measure and its smoothed
/// value (m/s, bpm, steps/min), for `workout_done` the summary. On the wire
/// its keys sit beside the step's own, so that a hook or a script reads
/// `workout.index` directly.
public struct WorkoutEventInfo: Sendable, Equatable, Codable {
    public var step: PlannedStep
    /// Steps as run in the whole workout (the N of "n of N").
    public var steps: Int
    public var measure: TargetMeasure?
    public var value: Double?
    /// `workout_done` only: the steps done, the time on target, the efforts' distance and time.
    public var summary: WorkoutTally?

    public init(step: PlannedStep, steps: Int, measure: TargetMeasure? = nil, value: Double? = nil,
                summary: WorkoutTally? = nil) {
        self.step = step
        self.steps = steps
        self.measure = measure
        self.value = value
        self.summary = summary
    }

    private enum CodingKeys: String, CodingKey { case steps, measure, value, summary }

    public init(from decoder: any Decoder) throws {
        step = try PlannedStep(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        steps = try c.decode(Int.self, forKey: .steps)
        measure = try c.decodeIfPresent(TargetMeasure.self, forKey: .measure)
        value = try c.decodeIfPresent(Double.self, forKey: .value)
        summary = try c.decodeIfPresent(WorkoutTally.self, forKey: .summary)
    }

    public func encode(to encoder: any Encoder) throws {
        try step.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(steps, forKey: .steps)
        try c.encodeIfPresent(measure, forKey: .measure)
        if let value, value.isFinite { try c.encode(value, forKey: .value) }
        try c.encodeIfPresent(summary, forKey: .summary)
    }
}
