import Foundation
import MoonRunnerTestSupport
import Testing
@testable import MoonRunnerCore

@Suite("Workout: target alerts and restarts")
struct WorkoutAlertTests {
    /// 4:00/km, 3:50/km and 4:10/km as speeds.
    static let onPace = 1000.0 / 240, tooSlow = 1000.0 / 260, tooFast = 1000.0 / 220

    @Test("a pace alert comes about 15 s after leaving the band, and back on pace within 10 s of returning")
    func paceAlert() throws {
        var f = try WorkoutFeed("20min @3:50-4:10/km")
        f.run(120, speed: Self.onPace)
        f.run(60, speed: Self.tooSlow)
        f.run(60, speed: Self.onPace)
        f.run(60, speed: Self.tooFast)
        #expect(f.kinds == [.workoutStep, .targetLow, .targetOK, .targetHigh])
        #expect(f.events.dropFirst().allSatisfy { $0.cause == "pace" })
        // The smoothing takes a few seconds to cross the band's edge, then 10 s must pass outside.
        let low = try #require(f.times(.targetLow).first), ok = try #require(f.times(.targetOK).first)
        #expect(low - 120 >= 12 && low - 120 <= 20, "\(low)")
        #expect(ok - 180 >= 4 && ok - 180 <= 10, "\(ok)")
        #expect(try #require(f.events[1].value) < 1000 / 250.0)
    }

    @Test("hysteresis: just beyond the edge, within the tolerance, raises nothing; back on pace needs the band itself")
    func hysteresis() throws {
        // The band's slow edge is 4.00 m/s (4:10/km); the tolerance is 1.5 % of it, 0.06 m/s.
        var f = try WorkoutFeed("30min @3:50-4:10/km")
        f.run(120, speed: 3.96)
        #expect(f.kinds == [.workoutStep], "1 % slower than the band is inside the tolerance")
        f.run(40, speed: 3.8)
        #expect(f.kinds == [.workoutStep, .targetLow])
        f.run(60, speed: 3.97)
        #expect(f.kinds == [.workoutStep, .targetLow], "back within the tolerance is not back on pace")
        f.run(20, speed: 4.1)
        #expect(f.kinds == [.workoutStep, .targetLow, .targetOK])
    }

    @Test("no alert in a step's first 10 s: the grace, then the dwell")
    func stepGrace() throws {
        var f = try WorkoutFeed("1km @3:50-4:00/km")
        f.run(40, speed: Self.tooSlow)
        let first = try #require(f.times(.targetLow).first)
        #expect(first >= 20 && first <= 25, "\(first)")
    }

    @Test("a step's first seconds, the change of pace, are not smoothed into its measure: no alert after a jog")
    func changeOfPace() throws {
        var f = try WorkoutFeed("3x(1km @3:50-4:00/km, 400m @5:30-6:30/km)")
        for _ in 0..<3 {
            for speed in [2.9, 3.3, 3.7, 4.0] { f.run(1, speed: speed) }
            f.run((1000 - 13.9) / (1000 / 235.0), speed: 1000 / 235.0)
            for speed in [3.8, 3.4, 3.0] { f.run(1, speed: speed) }
            f.run((400 - 10.2) / (1000 / 360.0), speed: 1000 / 360.0)
        }
        f.run(5, speed: 3)
        #expect(f.kinds.filter { $0 != .workoutStep } == [.workoutDone])
    }

    @Test("no alert in a rest step, whatever its target")
    func restStep() throws {
        var f = try WorkoutFeed("3min rest @4:00/km")
        f.run(200, speed: 1.5)
        #expect(f.kinds == [.workoutStep, .workoutDone])
    }

    @Test("no alert for standing at a light, auto-paused or not yet, nor for setting off again")
    func standing() throws {
        var f = try WorkoutFeed("20min @3:50-4:10/km")
        f.run(60, speed: Self.onPace)
        for (speed, seconds) in [(2.5, 1.0), (0.9, 1), (0.3, 6)] { f.run(seconds, speed: speed) }
        f.run(60, speed: 0.4, motion: .autoPaused)
        for speed in [1.5, 2.5, 3.5] { f.run(1, speed: speed) }
        f.run(60, speed: Self.onPace)
        // A short stop that auto-pause never decides.
        for (speed, seconds) in [(2.5, 1.0), (0.2, 7), (2.0, 1), (3.5, 1)] { f.run(seconds, speed: speed) }
        f.run(60, speed: Self.onPace)
        #expect(f.kinds == [.workoutStep])
    }

    @Test("a second alert waits 30 s after the last, however soon the wearer leaves the band again")
    func quietAfterAlert() throws {
        var f = try WorkoutFeed("30min @3:50-4:10/km")
        f.run(60, speed: Self.onPace)
        f.run(30, speed: Self.tooSlow)
        f.run(12, speed: Self.onPace)
        f.run(60, speed: Self.tooSlow)
        #expect(f.kinds == [.workoutStep, .targetLow, .targetOK, .targetLow])
        let lows = f.times(.targetLow)
        #expect(lows[1] - lows[0] >= 30)
    }

    @Test("a run inside the band with GPS-like noise on the speed raises no alert", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func noiseInside(seed: UInt64) throws {
        var rng = GPSTestRandom(seed: seed)
        var f = try WorkoutFeed("30min @3:50-4:10/km")
        // Doppler speed noise of the shared simulations (0.1 m/s per axis) and twice that under trees.
        f.run(1800, speed: Self.onPace, noise: { $0 + 0.2 * rng.gaussian() })
        #expect(f.kinds == [.workoutStep, .workoutDone])
    }

    @Test("heart-rate alerts on a zone target: too high after the smoothing and the dwell, back in range after; none without a strap")
    func heartRateZone() throws {
        var profile = HeartRateProfile()
        profile.maxBPM = 190
        var f = try WorkoutFeed("20min @Z2", profile: profile)
        f.run(60, hr: 125)
        f.run(60, hr: 145)
        f.run(30, hr: 125)
        f.run(60, hr: .nan)
        #expect(f.kinds == [.workoutStep, .targetHigh, .targetOK])
        #expect(f.events.dropFirst().allSatisfy { $0.cause == "hr" })
        let high = try #require(f.times(.targetHigh).first)
        #expect(high - 60 >= 10 && high - 60 <= 15, "\(high)")
    }

    @Test("a heart-rate alert is not held back by a slow walk (under 1 m/s gates pace, not the strap); none while auto-paused")
    func heartRateAtAWalk() throws {
        var profile = HeartRateProfile()
        profile.maxBPM = 190
        var f = try WorkoutFeed("20min @Z2", profile: profile)
        f.run(90, speed: 3, hr: 125)                            // past the 60 s grace, inside zone 2 (114–133)
        f.run(40, speed: 0.8, hr: 105)                          // a slow walk, the heart rate below the zone
        let low = try #require(f.times(.targetLow).first)
        #expect(low - 90 >= 10 && low - 90 <= 15, "after the smoothing and the 10 s dwell: \(low)")
        var g = try WorkoutFeed("20min @Z2", profile: profile)
        g.run(90, speed: 3, hr: 125)
        g.run(40, speed: 0, hr: 105, motion: .autoPaused)
        #expect(g.times(.targetLow).isEmpty, "stopped: nothing is said")
    }

    @Test("the state survives a restart mid-step: the same step, its elapsed time and distance kept, its end where it was due")
    func restart() throws {
        var f = try WorkoutFeed("10min easy; 2x(1km @3:50-4:10/km, 90s rest); 10min easy")
        f.run(600 + 120, speed: Self.onPace)
        let before = try #require(f.runner.progress)
        let json = try JSONEncoder().encode(f.runner.state)
        let state = try JSONDecoder().decode(WorkoutRunnerState.self, from: json)
        #expect(state == f.runner.state)

        // The daemon was away 40 s (the engine counts it as a pause): the runner takes its bearings again.
        var g = f
        g.runner = WorkoutRunner(restoring: state, plan: f.runner.plan)
        g.t += 40
        g.events = []
        g.run(1, speed: 0, motion: .paused)
        let after = try #require(g.runner.progress)
        #expect(after.step == before.step && after.elapsed == before.elapsed && after.distance == before.distance)
        g.run(200, speed: Self.onPace)
        let next = try #require(g.events.first)
        #expect(next.kind == .workoutStep && next.step.intensity == .rest)
        #expect(abs(next.time - (g.t - 200 + (1000 - before.distance) / Self.onPace)) < 1e-6)
    }
}
