import Foundation
import Testing
@testable import MoonRunnerCore

@Suite("Workout: each step as run, as analyze --workout prints it")
struct WorkoutStepSummaryTests {
    @Test("a replay through the workout gives each step its start, end, distance, moving time, pace and time in target")
    func steps() throws {
        let plan = try WorkoutPlan(WorkoutText.parse("400m @3:50-4:10/km; 60s rest; 400m"))
        var analysis = TraceAnalysis(workout: plan)
        var north = 0.0
        // 4:00/km for 110 s, standing 70 s, 4:00/km again for 120 s.
        for t in 0..<300 {
            let speed = t < 110 || t >= 180 ? 1000.0 / 240 : 0
            north += speed
            analysis.feed(Synth.fix(Double(t), north: north, speed: speed), at: Double(t))
        }
        let summary = analysis.finish(at: 300)
        let steps = try #require(summary.workoutSteps)
        #expect(steps.map(\.step.index) == [0, 1, 2])
        #expect(steps.map(\.completed) == [true, true, true])
        // The filter starts on the second fix and lags a little: the first 400 m end within 3 s of 96 s.
        #expect(abs(steps[0].end - 96) <= 3, "\(steps[0].end)")
        #expect(abs(steps[0].distance - 400) < 1)
        #expect(abs(steps[1].end - steps[1].start - 60) < 1e-6, "a rest is 60 s, stood or not")
        let pace = try #require(steps[0].averageSpeed)
        #expect(abs(pace - 1000.0 / 240) < 0.2, "\(pace)")
        let inTarget = try #require(steps[0].timeInTarget)
        #expect(inTarget > 70, "most of the step was run inside the band: \(inTarget)")
        #expect(steps[1].timeInTarget == nil && steps[2].timeInTarget == nil, "no target, no time in it")
        #expect(summary.events.filter { $0.kind == .workoutDone }.count == 1)
    }
}
