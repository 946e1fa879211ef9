import Testing
@testable import MoonRunnerCore

/// One step of a workout's list.
private func step(_ d: StepDuration, _ target: StepTarget = .none, _ intensity: StepIntensity = .active,
                  name: String? = nil) -> WorkoutItem {
    .step(WorkoutStep(duration: d, target: target, intensity: intensity, name: name))
}

@Suite("Workout: the model and its plan")
struct WorkoutModelTests {
    static func refusal(_ items: [WorkoutItem]) -> String? {
        do {
            try Workout(name: "w", items: items).validate()
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a step that cannot be run is refused with its step and reason", arguments: [
        ([WorkoutItem](), "the workout has no steps"),
        ([step(.time(0))], "step 1: a step of 0 s cannot be run"),
        ([step(.time(60)), step(.distance(-5))], "step 2: a step of -5 m cannot be run"),
        ([step(.time(.nan))], "step 1: a timed step without its time"),
        ([step(.heartRateAbove(.bpm(.nan)))], "step 1: a step that ends at a heart rate gives no heart rate"),
        ([step(.heartRateBelow(.percentOfMax(140)))],
         "step 1: a step that ends at a heart rate: 140 % of the maximum is not a heart rate"),
        ([step(.time(60), .speed(low: 4.3, high: 4.1))],
         "step 1: the pace range is inverted (slow end faster than fast end)"),
        ([step(.time(60), .heartRate(low: .bpm(160), high: .bpm(150)))],
         "step 1: the heart-rate range 160–150 bpm is inverted"),
        ([step(.time(60), .heartRateZone(6))], "step 1: heart-rate zone 6 is not one of 1–5"),
        ([step(.time(60), .cadence(low: 180, high: 170))], "step 1: the cadence range 180–170 is inverted"),
    ])
    func refusedSteps(items: [WorkoutItem], reason: String) {
        #expect(Self.refusal(items) == reason)
    }

    @Test("a repeat that points nowhere, at itself or forward, or whose block cuts through another, is refused", arguments: [
        ([step(.time(60)), .repeats(from: 7, times: 3)], "step 2: the repeat points nowhere (to step 8 of 2)"),
        ([step(.time(60)), .repeats(from: -1, times: 3)], "step 2: the repeat points nowhere (to step 0 of 2)"),
        ([step(.time(60)), .repeats(from: 1, times: 3)], "step 2: the repeat points at itself"),
        ([.repeats(from: 1, times: 3), step(.time(60))], "step 1: the repeat points forward, to step 2"),
        ([step(.time(60)), .repeats(from: 0, times: 0)], "step 2: a repeat of 0 rounds (1 to 100 are run)"),
        ([step(.time(60)), step(.time(60)), .repeats(from: 0, times: 2), step(.time(60)), .repeats(from: 1, times: 2)],
         "step 5: the repeat's block (steps 2–4) cuts through the repeat at step 3 (blocks must nest)"),
    ])
    func refusedRepeats(items: [WorkoutItem], reason: String) {
        #expect(Self.refusal(items) == reason)
    }

    @Test("repeats nested four deep are refused; three are run")
    func nestingLimit() {
        let three: [WorkoutItem] = [step(.time(30)), .repeats(from: 0, times: 2), .repeats(from: 0, times: 2),
                                    .repeats(from: 0, times: 2)]
        #expect(Self.refusal(three) == nil)
        #expect(Self.refusal(three + [.repeats(from: 0, times: 2)]) == "step 5: repeats nested more than 3 deep")
    }

    @Test("a workout that runs to more than 1000 steps is refused")
    func tooManySteps() {
        let w = Workout(name: "w", items: [step(.time(30)), step(.time(30)), .repeats(from: 0, times: 100),
                                           .repeats(from: 0, times: 6)])
        #expect(throws: WorkoutError("the workout runs to more than 1000 steps")) { try WorkoutPlan(w) }
    }

    @Test("repeats unroll into the steps as run: index from 0, the file's step, the round from 1 of the repeat's count")
    func unrolled() throws {
        let w = Workout(name: "w", items: [step(.time(900), .none, .warmup), step(.distance(800), .none, .interval),
                                           step(.time(90), .none, .rest), .repeats(from: 1, times: 3),
                                           step(.time(600), .none, .cooldown)])
        let plan = try WorkoutPlan(w)
        #expect(plan.steps.map(\.index) == Array(0..<8))
        #expect(plan.steps.map(\.wktStepIndex) == [0, 1, 2, 1, 2, 1, 2, 4])
        #expect(plan.steps.map(\.round) == [1, 1, 1, 2, 2, 3, 3, 1])
        #expect(plan.steps.map(\.rounds) == [1, 3, 3, 3, 3, 3, 3, 1])
        #expect(plan.steps[2].end == .time(90) && plan.steps[2].runsOnSessionClock)
        #expect(!plan.steps[1].runsOnSessionClock)
    }

    @Test("a nested repeat runs its block afresh in every round of the repeat around it")
    func nested() throws {
        // 2 × (3 × (200 m, 200 m jog), 3 min rest)
        let w = Workout(name: "w", items: [step(.distance(200)), step(.distance(200), .none, .recovery),
                                           .repeats(from: 0, times: 3), step(.time(180), .none, .rest),
                                           .repeats(from: 0, times: 2)])
        let plan = try WorkoutPlan(w)
        #expect(plan.steps.count == 14)
        #expect(plan.steps.map(\.wktStepIndex) == [0, 1, 0, 1, 0, 1, 3, 0, 1, 0, 1, 0, 1, 3])
        #expect(plan.steps.map(\.round) == [1, 1, 2, 2, 3, 3, 1, 1, 1, 2, 2, 3, 3, 2])
    }

    @Test("heart rates resolve with the wearer's profile: a zone is its band, a percentage is of the maximum")
    func heartRates() throws {
        var profile = HeartRateProfile()
        profile.maxBPM = 190
        profile.restingBPM = 50
        let w = Workout(name: "w", items: [step(.time(600), .heartRateZone(2)), step(.time(600), .heartRateZone(1)),
                                           step(.time(600), .heartRateZone(5)),
                                           step(.heartRateBelow(.percentOfMax(60)), .heartRate(low: .bpm(120), high: .percentOfMax(70)))])
        let plan = try WorkoutPlan(w, heartRate: profile)
        #expect(plan.steps[0].target == TargetBand(measure: .hr, low: 114, high: 133, zone: 2))
        #expect(plan.steps[1].target == TargetBand(measure: .hr, low: 50, high: 114, zone: 1))
        #expect(plan.steps[2].target == TargetBand(measure: .hr, low: 171, high: 190, zone: 5))
        #expect(plan.steps[3].end == .heartRateBelow(114))
        #expect(plan.steps[3].target == TargetBand(measure: .hr, low: 120, high: 133))
    }

    @Test("a heart-rate range of bpm and percentage that is inverted for the wearer is refused when resolved")
    func mixedInverted() {
        var profile = HeartRateProfile()
        profile.maxBPM = 180
        let w = Workout(name: "w", items: [step(.time(60), .heartRate(low: .bpm(150), high: .percentOfMax(80)))])
        #expect(throws: WorkoutError(step: 1, "the heart-rate range 150–144 bpm is inverted")) {
            try WorkoutPlan(w, heartRate: profile)
        }
    }
}
