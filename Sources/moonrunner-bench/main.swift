// moonrunner-bench: speed figures of the release build.
//
// (a) Step detector throughput on one core over a synthetic 10-hour, 100 Hz
//     trace held in memory (walking, running, standing, desk fidgeting);
//     only the detection loop is timed (thread CPU time, so that other
//     work on a shared machine does not count), and the step count is
//     printed so the work cannot be optimised away.
// (b) With `--bin PATH/TO/moonrunner`: writes the same 10 hours as a CSV
//     trace into a temporary directory and times `moonrunner analyze` on it
//     (wall time, parsing included).
//
// (c) The altitude fusion (barometer + GPS) per reading and per fix, and the
//     share of a core it takes at 10 readings and one fix a second.
// (d) Course matching: a synthetic 50 km course (ten laps of a 5 km loop,
//     a vertex every 10 m, so every position has ten passes of the course)
//     run at 3 m/s with 1 Hz fixes scattered by 4 m, including a 2 km
//     detour off the course; thread CPU time per fix of `CourseMatcher`.
// (f) The terrain under a track: a 1″ .hgt and a GLO-30 GeoTIFF, a runner
//     crossing them at 3 m/s with 1 Hz fixes; wall time per lookup.
// (g) A structured workout's cost: the session engine over an hour of 1 Hz
//     fixes and 100 Hz IMU samples, without a workout and with 20 × 400 m;
//     thread CPU time per fix and per sample, and the difference.
//
// (e) With `--write-session DIR`: writes a stored session of `--hours` (10)
//     hours into a state folder through the real store, and does nothing
//     else; the web app's benchmark (Tests/Tools/web_bench.py) serves it.
//
// Usage: moonrunner-bench [--hours H] [--bin PATH] [--keep] [--write-session DIR]

import Foundation
import MoonRunnerCore
import MoonRunnerSystem

struct Options {
    var hours = 10.0
    var bin: String?
    var keep = false
    var writeSession: String?

    init(_ args: [String]) {
        var i = 1
        while i < args.count {
            switch args[i] {
            case "--hours" where i + 1 < args.count:
                hours = Double(args[i + 1]) ?? hours
                i += 1
            case "--bin" where i + 1 < args.count:
                bin = args[i + 1]
                i += 1
            case "--keep":
                keep = true
            case "--write-session" where i + 1 < args.count:
                writeSession = args[i + 1]
                i += 1
            default:
                FileHandle.standardError.write(Data("usage: moonrunner-bench [--hours H] [--bin PATH] [--keep] [--write-session DIR]\n".utf8))
                exit(64)
            }
            i += 1
        }
    }
}

/// One synthetic hour at 100 Hz: accelerations only (as Float, to keep the
/// trace small); the benchmark replays it with shifted times.
struct SyntheticHour {
    static let rate = 100.0
    var ax: [Float] = []
    var ay: [Float] = []
    var az: [Float] = []

    init() {
        let n = Int(3600 * Self.rate)
        ax.reserveCapacity(n)
        ay.reserveCapacity(n)
        az.reserveCapacity(n)
        var rng = SplitMix(seed: 42)
        for i in 0..<n {
            let t = Double(i) / Self.rate
            // 15-minute blocks: walk, run, stand, desk.
            let block = Int(t / 900) % 4
            let (f, amp): (Double, Double) = switch block {
            case 0: (1.8, 0.35)
            case 1: (2.7, 0.9)
            case 2: (0, 0)
            default: (0, 0)
            }
            var v = 1.0 + rng.gaussian() * (block == 3 ? 0.03 : 0.01)
            if f > 0 {
                let phase = 2 * Double.pi * f * t
                v += amp * (sin(phase) + 0.3 * sin(2 * phase + 0.5))
            }
            // A tilted device: gravity over two axes.
            ax.append(Float(0.6 * v + rng.gaussian() * 0.01))
            ay.append(Float(rng.gaussian() * 0.01))
            az.append(Float(0.8 * v + rng.gaussian() * 0.01))
        }
    }

    var count: Int { ax.count }
}

/// Small deterministic generator, so runs are comparable.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}

/// CPU time of this thread: on a machine shared with other work the wall
/// clock also counts the time the benchmark waited for the core.
func cpuNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Runs `detector` over `hours` of the synthetic hour; returns (steps, seconds).
func run<D: StepDetector>(_ detector: inout D, _ hour: SyntheticHour, hours: Double) -> (Int, Double) {
    let total = Int(hours * Double(hour.count))
    var steps = 0
    let dt = 1 / SyntheticHour.rate
    let start = cpuNow()
    var i = 0
    var base = 0
    while i < total {
        let n = min(hour.count, total - i)
        let t0 = Double(base) * 3600
        hour.ax.withUnsafeBufferPointer { ax in
            hour.ay.withUnsafeBufferPointer { ay in
                hour.az.withUnsafeBufferPointer { az in
                    for j in 0..<n {
                        let s = IMUSample(t: t0 + Double(j) * dt, ax: Double(ax[j]), ay: Double(ay[j]), az: Double(az[j]))
                        detector.process(s) { _ in steps += 1 }
                    }
                }
            }
        }
        i += n
        base += 1
    }
    return (steps, cpuNow() - start)
}

let options = Options(CommandLine.arguments)
if let dir = options.writeSession {
    do {
        let (id, points) = try await StoredSessionWriter.write(directory: dir, hours: options.hours)
        print("session \(id): \(points) points, \(options.hours) h, in \(dir)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("moonrunner-bench: cannot write the session: \(error)\n".utf8))
        exit(74)
    }
}
let hour = SyntheticHour()
let samples = Int(options.hours * Double(hour.count))
print(String(format: "synthetic trace: %.1f h at %.0f Hz = %d samples", options.hours, SyntheticHour.rate, samples))

func report(_ name: String, _ result: (Int, Double)) {
    let (steps, seconds) = result
    print(name.padding(toLength: 26, withPad: " ", startingAt: 0) + String(format: "%8.1f M samples/s  (%.3f s, %d steps)",
                 Double(samples) / seconds / 1e6, seconds, steps))
}

var adaptive = AdaptiveStepDetector()
report("adaptive", run(&adaptive, hour, hours: options.hours))
var seed = SeedStepDetector()
report("seed", run(&seed, hour, hours: options.hours))
var anyAdaptive = AnyStepDetector(kind: .adaptive)
report("AnyStepDetector(adaptive)", run(&anyAdaptive, hour, hours: options.hours))

let altitude = benchAltitudeFusion(hours: options.hours)
print(String(format: "altitude fusion           %8.1f ns per barometer reading, %.1f ns per fix: %.5f %% of a core at 10 Hz + 1 Hz (gain %.0f m)",
             altitude.perReading, altitude.perFix, altitude.coreShare, altitude.gain))

for t in benchTerrain(hours: max(options.hours, 2)) {
    print("terrain under the track   \(t.format): " + String(format: "%.2f µs per fix mean, p99 %.1f µs, worst %.0f µs (%d fixes at 3 m/s)",
                                                              t.mean, t.p99, t.worst, t.fixes))
}

let course = benchCourseMatching()
print(String(format: "course matching (%.1f km) %6.2f µs per fix mean, p99 %.1f µs, worst %.1f µs  (%d fixes, %d off course, %d vertices)",
             course.kilometres, course.mean, course.p99, course.worst, course.fixes, course.offCourse, course.vertices))
print(String(format: "course navigation with cues  %6.2f µs per fix mean, p99 %.1f µs  (%d cues, %d said: turn_ahead and turn_now)",
             course.navigatorMean, course.navigatorP99, course.cues, course.said))

let workout = benchWorkout()
print(String(format: "workout, engine per fix    %6.2f µs without, %.2f µs with a workout (%+.1f %%)",
             workout.perFix.plain, workout.perFix.workout,
             (workout.perFix.workout / workout.perFix.plain - 1) * 100))
print(String(format: "workout, engine per sample %6.1f ns without, %.1f ns with a workout (%+.1f %%)  (%d fixes, %d samples, %d workout events)",
             workout.perSample.plain, workout.perSample.workout,
             (workout.perSample.workout / workout.perSample.plain - 1) * 100, workout.fixes, workout.samples,
             workout.workoutEvents))
// A workout update runs every 0.5 s from whichever input comes: one of the two lands on the fix.
let perSecond = (plain: workout.perFix.plain + workout.perSample.plain / 10,
                 workout: workout.perFix.workout + workout.perSample.workout / 10)
print(String(format: "workout, engine per second  %6.2f µs without, %.2f µs with a workout (%+.1f %%)  (a fix and 100 samples)",
             perSecond.plain, perSecond.workout, (perSecond.workout / perSecond.plain - 1) * 100))

// (b) `moonrunner analyze` wall time on the same trace as CSV.
if let bin = options.bin {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("moonrunner-bench-\(getpid())")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let csv = dir.appendingPathComponent("synthetic.csv")
    _ = FileManager.default.createFile(atPath: csv.path, contents: nil)
    guard let out = try? FileHandle(forWritingTo: csv) else {
        print("cannot write \(csv.path)")
        exit(1)
    }
    out.write(Data("t,ax,ay,az\n".utf8))
    var chunk = ""
    chunk.reserveCapacity(1 << 20)
    for i in 0..<samples {
        let j = i % hour.count
        chunk += String(format: "%.2f,%.4f,%.4f,%.4f\n", Double(i) / SyntheticHour.rate, hour.ax[j], hour.ay[j], hour.az[j])
        if chunk.utf8.count > 1 << 20 {
            out.write(Data(chunk.utf8))
            chunk.removeAll(keepingCapacity: true)
        }
    }
    out.write(Data(chunk.utf8))
    try? out.close()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: bin)
    process.arguments = ["analyze", "--imu", csv.path, "--json"]
    process.standardOutput = FileHandle.nullDevice
    let start = MonotonicClock.now()
    do {
        try process.run()
        process.waitUntilExit()
        let seconds = MonotonicClock.now() - start
        print(String(format: "moonrunner analyze      %8.1f s wall for %.1f h (%.1f M samples/s), exit %d",
                     seconds, options.hours, Double(samples) / seconds / 1e6, process.terminationStatus))
    } catch {
        print("cannot run \(bin): \(error)")
    }
    if !options.keep { try? FileManager.default.removeItem(at: dir) }
}
