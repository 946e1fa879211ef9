import Foundation
import MoonRunnerCore

/// What the workout benchmark measured: the engine's thread CPU time per
/// GPS fix and per IMU sample over the same run, without a workout and
/// with one, and the events the workout raised (so it did its work).
struct WorkoutBenchResult {
    var fixes: Int
    var samples: Int
    /// µs per fix and ns per IMU sample, without and with the workout.
    var perFix: (plain: Double, workout: Double)
    var perSample: (plain: Double, workout: Double)
    var workoutEvents: Int
}

/// One hour of running on a straight road at 2.8–4.4 m/s (easy, then
/// 20 × 400 m hard with 60 s standing rests, then easy): 1 Hz fixes
/// scattered by 3 m and 100 Hz IMU samples of the stride, fed to a
/// `SessionEngine` as the daemon feeds it. Run once without and once with
/// "10m easy; 20x(400m @3:40-3:50/km, 60s rest); 10m easy"; each input
/// kind is timed on its own, best of `rounds`, so that another process on
/// a shared machine does not count.
func benchWorkout(seconds: Int = 3600, rounds: Int = 3) -> WorkoutBenchResult {
    let plan = try? WorkoutPlan(WorkoutText.parse("10m easy; 20x(400m @3:40-3:50/km, 60s rest); 10m easy"))
    var best = (plainFix: Double.infinity, workoutFix: Double.infinity,
                plainIMU: Double.infinity, workoutIMU: Double.infinity)
    var events = 0
    let timerCost = cpuTimerCost()
    for _ in 0..<rounds {
        let plain = engineRun(seconds: seconds, plan: nil, timerCost: timerCost)
        let workout = engineRun(seconds: seconds, plan: plan, timerCost: timerCost)
        best.plainFix = min(best.plainFix, plain.fix)
        best.plainIMU = min(best.plainIMU, plain.imu)
        best.workoutFix = min(best.workoutFix, workout.fix)
        best.workoutIMU = min(best.workoutIMU, workout.imu)
        events = workout.events
    }
    let samples = seconds * 100
    return WorkoutBenchResult(fixes: seconds, samples: samples,
                              perFix: (best.plainFix / Double(seconds) * 1e6, best.workoutFix / Double(seconds) * 1e6),
                              perSample: (best.plainIMU / Double(samples) * 1e9, best.workoutIMU / Double(samples) * 1e9),
                              workoutEvents: events)
}

/// The engine over the synthetic hour: CPU seconds in the fix calls and in
/// the IMU calls (the samples made beforehand, the timer's own cost taken
/// off), and the workout events raised.
private func engineRun(seconds: Int, plan: WorkoutPlan?, timerCost: Double) -> (fix: Double, imu: Double, events: Int) {
    var engine = SessionEngine(config: EngineConfig())
    var rng = SplitMix(seed: 11)
    var events = 0
    let emit: (EngineOutput) -> Void = { out in
        if case let .event(e) = out, e.workout != nil { events += 1 }
    }
    let t0 = 1_750_000_000.0
    try? engine.start(activity: .run, at: t0, workout: plan, emit: emit)
    var north = 0.0, fixTime = 0.0, imuTime = 0.0
    var second = [IMUSample](repeating: IMUSample(t: 0, ax: 0, ay: 0, az: 0), count: 100)
    for s in 0..<seconds {
        // Easy 10 min, then 400 m hard (≈ 92 s) and 60 s standing, 20 times, then easy.
        let cycle = (s - 600) % 152
        let hard = s >= 600 && s < 600 + 20 * 152
        let speed = !hard ? 2.8 : cycle < 92 ? 4.4 : 0
        let stride = speed > 0 ? 1.35 + 0.2 * speed : 0
        for k in 0..<100 {
            let t = t0 + Double(s) + Double(k) / 100
            let swing = stride > 0 ? 0.45 * sin(2 * Double.pi * stride * t) : 0
            second[k] = IMUSample(t: t, ax: 0.6 + swing * 0.6 + rng.gaussian() * 0.02,
                                  ay: rng.gaussian() * 0.02, az: 0.8 + swing * 0.8 + rng.gaussian() * 0.02)
        }
        let started = cpuNow()
        for sample in second { engine.ingest(sample, emit: emit) }
        imuTime += cpuNow() - started - timerCost
        north += speed
        let t = t0 + Double(s) + 1
        let fix = GPSFix(time: t, mode: 3, latitude: 51.5 + (north + rng.gaussian() * 3) / 111_200,
                         longitude: -0.15 + rng.gaussian() * 3 / 69_000, altitude: 30, eph: 6, speed: speed,
                         track: 0, stdLat: 3, stdLon: 3)
        let before = cpuNow()
        engine.ingest(fix, at: t, emit: emit)
        fixTime += cpuNow() - before - timerCost
    }
    return (fixTime, imuTime, events)
}

/// What one `cpuNow()` bracket costs, s: reading a thread's CPU clock is a
/// system call, a few hundred nanoseconds, as much as a fix's work.
func cpuTimerCost() -> Double {
    var best = Double.infinity
    for _ in 0..<5 {
        let n = 20_000, start = cpuNow()
        for _ in 0..<n { _ = cpuNow() }
        best = min(best, (cpuNow() - start) / Double(n))
    }
    return best
}
