import MoonRunnerCore

/// Steps counted per second for the store's `step_second` rows. A second
/// stays open while steps still fall in it and is handed over once a step
/// falls in a later one, or when a commit takes it; its cadence is the
/// engine's at its last step. Seconds are whole engine seconds, rounded down.
struct StepSecondTally: Sendable {
    private(set) var open: StepSecondSample?

    /// A step at `t` (engine seconds); returns the second it closed, if any.
    mutating func step(at t: Double, cadence: Double) -> StepSecondSample? {
        let second = Int64(t.rounded(.down))
        var closed: StepSecondSample?
        if var s = open, s.second == second {
            s.steps += 1
            open = s
        } else {
            closed = open
            open = StepSecondSample(second: second, steps: 1, cadence: 0)
        }
        open?.cadence = cadence
        return closed
    }

    /// Takes the open second (a commit writes what there is).
    mutating func take() -> StepSecondSample? {
        defer { open = nil }
        return open
    }
}
