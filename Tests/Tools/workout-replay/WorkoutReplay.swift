import ArgumentParser
import Foundation
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerSensors

/// Replays a recorded session through the engine and a planned workout
/// through `WorkoutRunner`, fed as the engine will feed it once the two are
/// joined (after every fix, with the session's moving time, distance, speed
/// and heart rate): what `moonrunner analyze --workout` will print, for
/// `Tests/Tools/eval_workout.py` until then. The engine runs once; the
/// runner runs once per alert setting given, so a sweep costs one replay.
@main
struct WorkoutReplay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workout-replay",
        abstract: "Replays a GPS trace through the engine and a workout through WorkoutRunner (evaluation tool).")

    @Option(help: "gpsd JSON of the session (gpspipe -w).") var gps: String
    @Option(help: "The workout: a FIT workout file or the text form.") var workout: String
    @Option(help: "Heart-rate trace (t,bpm,rr_ms).") var hr: String?
    @Option(help: "UNIX time the wearer starts the session (default: the first fix).") var start: Double?
    @Option(help: "UNIX time of a lap command; repeat for several.") var lap: [Double] = []
    @Option(help: "The wearer's maximum heart rate, bpm.") var hrMax: Double?
    @Option(help: "The wearer's resting heart rate, bpm.") var hrRest: Double?
    @Option(help: "JSON array of alert settings (WorkoutConfig's fields by name); default: the defaults.")
    var configs: String?
    @Flag(help: "Print what the runner is told at each update instead (time, moving, distance, speed, hr, motion).")
    var inputs = false

    func run() throws {
        var profile = HeartRateProfile()
        if let hrMax { profile.maxBPM = hrMax }
        if let hrRest { profile.restingBPM = hrRest }
        let data = try Data(contentsOf: URL(fileURLWithPath: workout))
        let plan = try WorkoutPlan(try WorkoutFile.read(data), heartRate: profile)
        var engineConfig = EngineConfig()
        engineConfig.heartRate = profile
        let inputs = try SessionInputs.record(config: engineConfig, activity: plan.workout.sport ?? .run,
                                              fixes: GPSTraceReader.read(path: gps),
                                              beats: hr.map { try HeartRateTraceReader.readAll(path: $0) } ?? [],
                                              start: start, laps: lap)
        if self.inputs {
            for e in inputs {
                let x = e.input
                print("\(e.kind) \(x.time) \(x.moving) \(x.distance) \(x.speed) \(x.heartRate) \(x.motion.rawValue)")
            }
            return
        }
        var runs: [[String: Any]] = []
        for (settings, config) in try alertConfigs() {
            runs.append(["config": settings, "events": Self.run(plan, config: config, inputs: inputs).map(Self.json)])
        }
        let out = try JSONSerialization.data(withJSONObject: ["updates": inputs.count, "steps": plan.steps.count,
                                                              "runs": runs], options: [.sortedKeys])
        FileHandle.standardOutput.write(out + Data("\n".utf8))
    }

    /// The settings to run with: each as given and as a `WorkoutConfig`.
    func alertConfigs() throws -> [([String: Double], WorkoutConfig)] {
        guard let configs else { return [([:], WorkoutConfig())] }
        let list = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: configs)))
        guard let sets = list as? [[String: Double]] else { throw ValidationError("--configs: a JSON array of objects of numbers") }
        return try sets.map { s in (s, try AlertSettings.config(s)) }
    }

    static func run(_ plan: WorkoutPlan, config: WorkoutConfig, inputs: [SessionInputs.Entry]) -> [WorkoutEvent] {
        var runner = WorkoutRunner(plan: plan, config: config)
        var events: [WorkoutEvent] = []
        for e in inputs {
            switch e.kind {
            case .start: runner.start(e.input) { events.append($0) }
            case .update: runner.update(e.input) { events.append($0) }
            case .lap: runner.lap(e.input) { events.append($0) }
            }
        }
        return events
    }

    static func json(_ e: WorkoutEvent) -> [String: Any] {
        var o: [String: Any] = ["event": e.kind.rawValue, "time": e.time, "detected_at": e.detectedAt, "cause": e.cause,
                                "index": e.step.index, "wkt_step_index": e.step.wktStepIndex, "repeat": e.step.round,
                                "intensity": e.step.intensity.rawValue, "end": e.step.end.kind]
        if let v = e.step.end.value { o["end_value"] = v }
        if let t = e.step.target { o["target"] = ["measure": t.measure.rawValue, "low": t.low, "high": t.high] }
        if let v = e.value { o["value"] = v }
        return o
    }
}

/// `WorkoutConfig`'s tuned fields by name, for sweeps.
enum AlertSettings {
    static var fields: [String: WritableKeyPath<WorkoutConfig, Double>] {
        ["pace_smoothing": \.paceSmoothing, "hr_smoothing": \.hrSmoothing, "pace_tolerance": \.paceTolerance,
         "hr_tolerance": \.hrTolerance, "alert_after": \.alertAfter, "leak": \.leak, "ok_after": \.okAfter,
         "quiet": \.quiet, "step_grace": \.stepGrace, "resume_grace": \.resumeGrace, "still_speed": \.stillSpeed,
         "settle": \.settle, "hr_step_grace": \.hrStepGrace, "cadence_smoothing": \.cadenceSmoothing]
    }

    static func config(_ settings: [String: Double]) throws -> WorkoutConfig {
        var c = WorkoutConfig()
        for (name, value) in settings {
            guard let path = fields[name] else {
                throw ValidationError("unknown setting \(name): one of \(fields.keys.sorted().joined(separator: ", "))")
            }
            c[keyPath: path] = value
        }
        return c
    }
}
