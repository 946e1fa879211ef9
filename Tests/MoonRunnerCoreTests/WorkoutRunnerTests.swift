import Foundation
import MoonRunnerTestSupport
import Testing
@testable import MoonRunnerCore

/// A session as the engine would feed the runner: one update per `dt`
/// seconds, moving time and distance counted only while moving.
struct WorkoutFeed {
    var runner: WorkoutRunner
    var t = 0.0, moving = 0.0, distance = 0.0
    var events: [WorkoutEvent] = []

    init(_ text: String, config: WorkoutConfig = WorkoutConfig(), profile: HeartRateProfile = HeartRateProfile()) throws {
        runner = WorkoutRunner(plan: try WorkoutPlan(WorkoutText.parse(text), heartRate: profile), config: config)
        var out: [WorkoutEvent] = []
        runner.start(input(speed: .nan, hr: .nan, motion: .moving)) { out.append($0) }
        events = out
    }

    func input(speed: Double, hr: Double, motion: WorkoutMotion) -> WorkoutInput {
        WorkoutInput(time: t, moving: moving, distance: distance, speed: speed, heartRate: hr, motion: motion)
    }

    /// `seconds` at `speed` (m/s; the distance grows by it while moving).
    mutating func run(_ seconds: Double, speed: Double = 4, hr: Double = .nan, motion: WorkoutMotion = .moving,
                      dt: Double = 1, noise: ((Double) -> Double)? = nil) {
        let end = t + seconds
        while t < end - 1e-9 {
            let step = min(dt, end - t)
            t += step
            if motion == .moving {
                moving += step
                distance += speed * step
            }
            var out: [WorkoutEvent] = []
            runner.update(input(speed: noise.map { $0(speed) } ?? speed, hr: hr, motion: motion)) { out.append($0) }
            events += out
        }
    }

    mutating func lap() {
        var out: [WorkoutEvent] = []
        runner.lap(input(speed: 4, hr: .nan, motion: .moving)) { out.append($0) }
        events += out
    }

    func times(_ kind: WorkoutEventKind) -> [Double] { events.filter { $0.kind == kind }.map(\.time) }
    var kinds: [WorkoutEventKind] { events.map(\.kind) }
}

@Suite("Workout: the runner")
struct WorkoutRunnerTests {
    @Test("the first step begins at the start; a timed step ends where its time is reached, between two updates")
    func timedSteps() throws {
        var f = try WorkoutFeed("95s; 30.5s; 10s")
        f.run(200, dt: 2)
        #expect(f.kinds == [.workoutStep, .workoutStep, .workoutStep, .workoutDone])
        #expect(f.times(.workoutStep) == [0, 95, 125.5])
        #expect(f.events.map(\.cause) == ["start", "time", "time", "time"])
        #expect(f.times(.workoutDone) == [135.5])
        #expect(f.events[1].detectedAt == 96)
    }

    @Test("a distance step ends where the moving distance reaches it and the next counts from that mark: 6 × 800 m is 4800 m")
    func distanceSteps() throws {
        var f = try WorkoutFeed("6x(800m)")
        f.run(1300, speed: 3.7)
        // Each mark falls between fixes; the steps still start every 800 m exactly.
        let starts = f.times(.workoutStep) + f.times(.workoutDone)
        let marks: [Double] = (1...6).map { Double($0) * 800 / 3.7 }
        let onTheMarks = zip(starts.dropFirst(), marks).allSatisfy { (start: Double, mark: Double) in abs(start - mark) < 1e-9 }
        #expect(onTheMarks, "\(starts)")
        #expect(f.events.dropFirst().allSatisfy { $0.cause == "distance" })
        #expect(f.events.map(\.step.round) == [1, 2, 3, 4, 5, 6, 6])
    }

    @Test("the end's tally: steps run in full and cut short by lap, the efforts' time on target, their distance and moving time")
    func tally() throws {
        var f = try WorkoutFeed("2x(400m @3:50-4:10/km, 60s rest); 2min")
        f.run(100, speed: 4.1)                       // inside the band (4.00–4.35 m/s)
        f.run(58, speed: 0, motion: .autoPaused)
        f.run(110, speed: 3.8)                       // below it throughout
        f.run(60, speed: 0, motion: .autoPaused)
        f.run(30, speed: 4)
        f.lap()                                      // the 2 minutes cut short
        let done = try #require(f.events.last { $0.kind == .workoutDone })
        let tally = try #require(done.tally)
        #expect(tally.completed == 4 && tally.skipped == 1)
        // Both intervals and the active 2 minutes; the metres run into a rest are the rest's.
        #expect(abs(tally.activeDistance - 920) < 1e-6, "\(tally)")
        #expect(abs(tally.activeMoving - (400 / 4.1 + 400 / 3.8 + 30)) < 1e-6, "\(tally)")
        // Judged past each interval's 10 s grace (the second's from the first second moving):
        // 87.6 s inside the band, then 94 s below it.
        #expect(tally.inTargetSeconds > 86.5 && tally.inTargetSeconds < 88.5, "\(tally)")
        #expect(tally.targetSeconds > 179 && tally.targetSeconds < 184, "\(tally)")
        #expect(f.events.filter { $0.kind != .workoutDone }.allSatisfy { $0.tally == nil })
    }

    @Test("a rest step's clock runs while the wearer stands auto-paused; an interval's waits for moving time")
    func restRunsWhileStanding() throws {
        var f = try WorkoutFeed("60s; 90s rest; 60s")
        f.run(60)
        f.run(90, motion: .autoPaused)
        #expect(f.times(.workoutStep) == [0, 60, 150])
        f.run(20, motion: .autoPaused)
        f.run(40)
        #expect(f.times(.workoutDone).isEmpty)
        f.run(20)
        #expect(f.times(.workoutDone) == [230])
    }

    @Test("a distance step the wearer stops within its last 3 % of ends where they stopped; further from the mark it waits")
    func stopAtTheMark() throws {
        // GPS counted 785 m of an 800 m repeat (1.9 % short) when the runner stopped at the line.
        var f = try WorkoutFeed("2x(800m, 90s rest)")
        f.run(157, speed: 5)
        f.run(6, speed: 0)                        // standing; auto-pause not decided yet
        f.moving = 157                            // decided now, back-dated to the stop at 157 s
        f.run(1, speed: 0, motion: .autoPaused)
        f.run(1, speed: 0, motion: .autoPaused)
        #expect(f.times(.workoutStep) == [0, 157])
        #expect(f.runner.progress?.elapsed == 8, "the rest's clock runs from the stop")
        // 60 m short (7.5 %) is a stop before the line: the repeat goes on.
        var g = try WorkoutFeed("800m; 90s rest")
        g.run(148, speed: 5)
        g.run(10, speed: 0, motion: .autoPaused)
        #expect(g.kinds == [.workoutStep])
    }

    @Test("moving time a late resume back-dates into a rest is not the next step's")
    func resumeBackDatedIntoRest() throws {
        // The runner sets off at 88 s, 2 s before the rest's end; auto-pause says so at 92 s.
        var f = try WorkoutFeed("90s rest; 60s")
        f.run(92, motion: .autoPaused)
        #expect(f.times(.workoutStep) == [0, 90])
        f.moving += 4
        f.run(57)
        #expect(f.times(.workoutDone).isEmpty, "4 s of moving time came at once, 2 of them the rest's")
        f.run(2)
        #expect(f.times(.workoutDone) == [150])
    }

    @Test("a repeat whose GPS distance creeps on after the runner stood at its mark ends at the stop, not one fix of slowness")
    func standingByItsSpeed() throws {
        // 785 m of 800 at the line; then the speed is a stand's while the distance creeps on.
        var f = try WorkoutFeed("800m; 90s rest")
        f.run(157, speed: 5)
        f.run(20, speed: 0.8)
        #expect(f.times(.workoutStep) == [0, 157], "before auto-pause decides")
        // Under trees one fix reads a stand mid-stride: the repeat goes on to its distance.
        var g = try WorkoutFeed("800m; 90s rest")
        g.run(156, speed: 5)
        g.run(1, speed: 0.5)
        g.run(10, speed: 5)
        #expect(g.times(.workoutStep) == [0, 160.9])
    }

    @Test("a walker slower than a stand's speed all along reaches the mark: no stop, and the rest runs in full")
    func slowWalkerIsNoStand() throws {
        var f = try WorkoutFeed("800m; 30s rest; 1m")
        f.run(1100, speed: 0.8, dt: 0.5)
        let starts = f.times(.workoutStep)
        let expected: [Double] = [0, 1000, 1030]
        #expect(starts.count == 3 && zip(starts, expected).allSatisfy { (s: Double, e: Double) in abs(s - e) < 0.01 },
                "\(starts)")
    }

    @Test("a manual pause holds every clock, a rest's too")
    func manualPause() throws {
        var f = try WorkoutFeed("90s rest; 60s")
        f.run(30, motion: .autoPaused)
        f.run(100, motion: .paused)
        f.run(60, motion: .autoPaused)
        #expect(f.times(.workoutStep) == [0, 190])
        #expect(f.runner.state.index == 1)
    }

    @Test("the lap command ends an open step, and skips any other step, as a watch's lap key does")
    func lapCommand() throws {
        var f = try WorkoutFeed("lap easy; 10min; 1km")
        f.run(300)
        #expect(f.kinds == [.workoutStep])
        f.lap()
        f.run(30)
        f.lap()
        #expect(f.times(.workoutStep) == [0, 300, 330])
        #expect(f.events.map(\.cause) == ["start", "lap", "lap"])
        #expect(f.runner.progress?.distance == 0)
    }

    @Test("a heart-rate end needs the reading beyond its level for 3 s: one spike does not end the step")
    func heartRateEnd() throws {
        var f = try WorkoutFeed("hr<130 rest; 5min")
        f.run(30, hr: 150, motion: .autoPaused)
        f.run(1, hr: 125, motion: .autoPaused)
        f.run(1, hr: 150, motion: .autoPaused)
        #expect(f.kinds == [.workoutStep])
        f.run(5, hr: 128, motion: .autoPaused)
        #expect(f.times(.workoutStep) == [0, 35])
        #expect(f.events.last?.cause == "hr")
    }

    @Test("workout_done follows the last step, and nothing comes after it")
    func done() throws {
        var f = try WorkoutFeed("10s; 10s")
        f.run(100)
        f.lap()
        #expect(f.kinds == [.workoutStep, .workoutStep, .workoutDone])
        #expect(f.runner.current == nil && f.runner.progress == nil)
    }

    @Test("progress says n of N, the round, what is left of the step and where the pace lies in the band")
    func progress() throws {
        var f = try WorkoutFeed("2x(800m @3:50-4:10/km, 1min rest)")
        f.run(100, speed: 1000 / 240)
        let p = try #require(f.runner.progress)
        #expect(p.step.index == 0 && p.count == 4 && p.step.round == 1 && p.step.rounds == 2)
        let left: Double = 800 - 100 * 1000 / 240
        #expect(abs(try #require(p.remaining) - left) < 1e-6)
        // 4:00/km in a band of 3:50–4:10/km, measured in speed (the band's slow end is 0).
        let position: Double = (1000.0 / 240 - 4) / (1000.0 / 230 - 4)
        #expect(abs(try #require(p.position) - position) < 0.01)
        #expect(p.elapsed == 100 && p.alert == nil)
    }
}
