import Foundation
import Testing
@testable import MoonRunnerCore

/// A session with a planned workout, GPS only: one fix a second northwards,
/// time passed in, what the engine emits kept.
struct WorkoutEngineRun {
    var run = EngineRun()
    var t = 1000.0, north = 0.0
    /// The session's moving distance after each fix, to find where a mark was reached.
    var distances: [(t: Double, d: Double)] = []

    init(_ text: String, config: EngineConfig = EngineConfig()) throws {
        run.engine = SessionEngine(config: config)
        let plan = try WorkoutPlan(WorkoutText.parse(text), heartRate: config.heartRate)
        let t = self.t
        try run.command { e, emit in try e.start(activity: .run, at: t, workout: plan, emit: emit) }
    }

    /// `seconds` at `speed` m/s (0: standing where the last fix was).
    mutating func go(_ seconds: Int, speed: Double) {
        for _ in 0..<seconds {
            t += 1
            north += speed
            run.fix(Synth.fix(t, north: north, speed: speed))
            distances.append((t, run.engine.stats.distance))
        }
    }

    /// When the session's moving distance first reached `d` metres (between fixes, linearly).
    func reached(_ d: Double) -> Double? {
        for (a, b) in zip(distances, distances.dropFirst()) where a.d < d && b.d >= d {
            return a.t + (d - a.d) / (b.d - a.d) * (b.t - a.t)
        }
        return nil
    }

    var workoutEvents: [SessionEvent] { run.events.filter { $0.workout != nil } }
    func times(_ kind: SessionEventKind) -> [Double] { run.events.filter { $0.kind == kind }.map(\.time) }
}

@Suite("Session engine: a planned workout")
struct SessionWorkoutTests {
    @Test("the engine moves through the steps by moving distance and moving time: a step starts within 1 s of its mark")
    func distanceAndTime() throws {
        var w = try WorkoutEngineRun("400m; 60s; 400m")
        w.go(300, speed: 4)
        let starts = w.times(.workoutStep)
        #expect(starts.count == 3)
        #expect(starts.first == 1000)
        let mark = try #require(w.reached(400))
        // The runner places the end where the distance was reached between two updates.
        #expect(abs(starts[1] - mark) <= 1, "\(starts[1]) against \(mark)")
        #expect(abs(starts[2] - (starts[1] + 60)) <= 1, "\(starts[2]) against \(starts[1] + 60)")
        let done = try #require(w.times(.workoutDone).first)
        let third = try #require(w.distances.first { $0.t >= starts[2] })
        let end = try #require(w.reached(third.d + 400))
        #expect(abs(done - end) <= 1.5, "\(done) against \(end)")
        #expect(w.workoutEvents.map(\.cause) == ["start", "distance", "time", "distance"])
    }

    @Test("a rest step's clock runs while the wearer stands, auto-paused: the next step starts 90 s after the rest began")
    func restWhileAutoPaused() throws {
        var w = try WorkoutEngineRun("300m; 90s rest; 300m")
        w.go(100, speed: 4)
        w.go(120, speed: 0)
        #expect(w.run.events.contains { $0.kind == .autopause }, "GPS alone pauses a runner who stands")
        let starts = w.times(.workoutStep)
        #expect(starts.count == 3)
        #expect(abs(starts[2] - starts[1] - 90) <= 1, "\(starts)")
        #expect(w.run.engine.workout.progress?.step.index == 2)
    }

    @Test("the lap command ends an open step and skips any other, at the command's time")
    func lapCommand() throws {
        var w = try WorkoutEngineRun("lap; 10min; 5min")
        w.go(30, speed: 3)
        try w.run.command { e, emit in try e.lap(at: 1030.5, emit: emit) }
        w.go(30, speed: 3)
        try w.run.command { e, emit in try e.lap(at: 1061, emit: emit) }
        #expect(w.times(.workoutStep) == [1000, 1030.5, 1061])
        #expect(w.workoutEvents.map(\.cause) == ["start", "lap", "lap"])
        #expect(w.run.engine.stats.laps == 2, "a lap is still a lap of the session")
    }

    @Test("a manual pause holds every clock of the workout, a rest's too")
    func manualPause() throws {
        var w = try WorkoutEngineRun("60s rest; 60s")
        w.go(20, speed: 0)
        try w.run.command { e, emit in try e.pause(at: 1020, emit: emit) }
        w.run.command { e, emit in e.advance(to: 1100, emit: emit) }
        try w.run.command { e, emit in try e.resume(at: 1100, emit: emit) }
        w.t = 1100
        w.go(45, speed: 0)
        #expect(w.times(.workoutStep) == [1000, 1140])
    }

    @Test("workout events carry the step as run: index from 0 with repeats unrolled, the file's step, the round")
    func eventFields() throws {
        var w = try WorkoutEngineRun("2min easy; 3x(200m @3:50-4:00/km, 60s rest); 2min easy")
        w.go(600, speed: 1000 / 235)
        let steps = w.run.events.filter { $0.kind == .workoutStep }.compactMap(\.workout)
        #expect(steps.map(\.step.index) == Array(0..<8))
        #expect(steps.map(\.step.wktStepIndex) == [0, 1, 2, 1, 2, 1, 2, 4])
        #expect(steps.map(\.step.round) == [1, 1, 1, 2, 2, 3, 3, 1])
        #expect(steps.allSatisfy { $0.steps == 8 })
        #expect(steps[1].step.target?.measure == .pace)
        #expect(w.times(.workoutDone).count == 1)
        // The wire form: the step's keys beside the count, under "workout".
        let event = try #require(w.run.events.first { $0.kind == .workoutStep && $0.workout?.step.index == 3 })
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(event)) as? [String: Any])
        let workout = try #require(json["workout"] as? [String: Any])
        #expect(workout["index"] as? Int == 3)
        #expect(workout["wkt_step_index"] as? Int == 1)
        #expect(workout["repeat"] as? Int == 2)
        #expect(workout["steps"] as? Int == 8)
        #expect(workout["intensity"] as? String == "interval")
        #expect(try JSONDecoder().decode(SessionEvent.self, from: JSONEncoder().encode(event)) == event)
    }

    @Test("a pace alert from the engine names its measure and value; none while inside the band")
    func paceAlert() throws {
        var w = try WorkoutEngineRun("20min @3:50-4:10/km")
        w.go(120, speed: 1000 / 240)
        #expect(w.workoutEvents.map(\.kind) == [.workoutStep])
        w.go(60, speed: 1000 / 270)
        let low = try #require(w.run.events.first { $0.kind == .targetLow })
        #expect(low.workout?.measure == .pace)
        #expect(try #require(low.workout?.value) < 4.0)
        // About 15 s out of the band, as in the runner's own tests, plus the filter's lag.
        #expect(low.time - 1120 >= 10 && low.time - 1120 <= 22, "\(low.time)")
    }

    @Test("a restart mid-step keeps the step, its time and distance: the snapshot carries the workout")
    func restart() throws {
        var w = try WorkoutEngineRun("2x(400m, 60s rest)")
        // 400 m, a 60 s rest run through, and some 30 s into the second 400 m.
        w.go(190, speed: 4)
        let before = try #require(w.run.engine.workout.progress)
        #expect(before.step.index == 2)
        let data = try JSONEncoder().encode(w.run.engine.snapshot)
        let snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: data)
        var again = EngineRun()
        again.command { e, emit in e.restore(snapshot, at: w.t + 5, emit: emit) }
        let after = try #require(again.engine.workout.progress)
        #expect(after.step.index == 2)
        #expect(after.distance == before.distance)
        #expect(after.elapsed == before.elapsed)
        // The rest of the 400 m counts from where it was; the GPS filter
        // starts afresh after a restart (its first fix dropped), a few seconds.
        var w2 = w
        w2.run = again
        w2.t += 5
        w2.go(100, speed: 4)
        let step = try #require(w2.run.events.first { $0.kind == .workoutStep })
        #expect(step.workout?.step.index == 3)
        #expect(abs(step.time - (w.t + 5 + (400 - before.distance) / 4)) <= 5, "\(step.time)")
    }

    @Test("a session without a workout emits no workout event and keeps none in its snapshot")
    func none() throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .run, at: 0, emit: emit) }
        for t in 1...60 { run.fix(Synth.fix(Double(t), north: Double(t) * 3, speed: 3)) }
        #expect(run.events.allSatisfy { $0.workout == nil })
        #expect(run.engine.snapshot.workout == nil)
        #expect(run.engine.workout.progress == nil)
    }
}
