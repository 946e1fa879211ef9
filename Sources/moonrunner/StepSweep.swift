import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerSensors

/// Runs many step detector parameter sets over the same IMU traces in one
/// process, for the evaluation's cross-validated search
/// (Tests/Tools/eval_steps.py --cv): each trace is read once, and every set
/// goes through the same offline analysis as `moonrunner analyze --imu FILE
/// --no-auto-pause --step-parameters SET`. Not for users; hidden from help.
struct StepSweep: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "step-sweep",
        abstract: "Count steps for many detector parameter sets (evaluation tool).",
        discussion: """
            Prints one JSON line per parameter set: {"set": N, "ms": [[step instants of trace 1 in \
            integer milliseconds], ...]}, traces in the order given.
            """,
        shouldDisplay: false)

    @Option(help: ArgumentHelp("Parameter sets, one JSON object per line.", valueName: "file"))
    var parameters: String?
    @Flag(help: "Print the default parameters as one JSON object and exit.") var defaults = false
    @Argument(help: "IMU traces (CSV or CSV.gz).") var traces: [String] = []

    func validate() throws {
        guard defaults || parameters != nil else { throw ValidationError("give --parameters FILE or --defaults") }
    }

    func run() throws {
        if defaults {
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys]
            guard let data = try? e.encode(AdaptiveStepDetector.Parameters().values) else { return }
            print(String(decoding: data, as: UTF8.self))
            return
        }
        guard let parameters else { return }
        let sets: [AdaptiveStepDetector.Parameters]
        var recordings: [[IMUSample]] = []
        do {
            sets = try StepParameterFile.readLines(path: parameters)
            for path in traces {
                var samples: [IMUSample] = []
                try IMUTraceReader(path: path).forEach { samples.append($0) }
                recordings.append(samples)
            }
        } catch {
            OutputFile.standardError.write("moonrunner step-sweep: \(error)\n")
            Glibc.exit(ExitCodes.dataError)
        }
        for (n, set) in sets.enumerated() {
            var config = EngineConfig()
            config.stepParameters = set
            config.autoPause.enabled = false
            var line = "{\"set\": \(n), \"ms\": ["
            for (i, samples) in recordings.enumerated() {
                var analysis = TraceAnalysis(config: config)
                for s in samples { analysis.feed(s) }
                let steps = samples.last.map { analysis.finish(at: $0.t).stepTimes } ?? []
                line += (i == 0 ? "[" : ", [") + steps.map { String(Int(($0 * 1000).rounded())) }.joined(separator: ",") + "]"
            }
            print(line + "]}")
        }
    }
}
