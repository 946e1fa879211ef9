import ArgumentParser
import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the MoonRunner core offline over recorded traces (no daemon needed).",
        discussion: """
            IMU traces are CSV (t,ax,ay,az[,gx,gy,gz]; g and rad/s), plain or gzipped; GPS traces are
            gpsd JSON as `gpspipe -w` prints it. The session starts at the first input and stops at the
            last. Times in the output are on the traces' own clock.
            """)

    @Option(help: "IMU trace (CSV or CSV.gz).") var imu: String?
    @Option(help: "GPS trace (gpsd JSON lines).") var gps: String?
    @Option(help: "Step detector: \(StepDetectorKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var detector: String = StepDetectorKind.adaptive.rawValue
    @Option(help: "Activity: run or walk.") var activity: String = Activity.run.rawValue
    @Option(help: "Seconds added to IMU times (default: aligns a 0-based IMU trace with the GPS trace's start).")
    var imuOffset: Double?
    @Flag(help: "Disable automatic pause detection.") var noAutoPause = false
    @Option(help: "Start the session at this instant of the traces' clock (default: the first input); inputs before it are seen while idle, as a daemon sees them before ?START.")
    var start: Double?
    @Option(help: "Stop the session at this instant (default: the last input); later inputs are ignored.")
    var stop: Double?
    /// `--json` and `--imperial`/`--metric` are the options every subcommand
    /// shares (the root command declares them too; declaring the same group
    /// here is what hands them to this subcommand).
    @OptionGroup var output: ClientOptions

    func validate() throws {
        guard imu != nil || gps != nil else { throw ValidationError("give --imu FILE, --gps FILE, or both") }
        guard StepDetectorKind(rawValue: detector) != nil else {
            throw ValidationError("--detector must be one of \(StepDetectorKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard Activity(rawValue: activity) != nil else { throw ValidationError("--activity must be run or walk") }
        if let start, let stop, stop < start { throw ValidationError("--stop must not be before --start") }
    }

    func run() throws {
        var config = EngineConfig()
        config.detector = StepDetectorKind(rawValue: detector) ?? .adaptive
        config.autoPause.enabled = !noAutoPause
        var analysis = TraceAnalysis(config: config, activity: Activity(rawValue: activity) ?? .run, startAt: start)
        let end = stop ?? .infinity

        var fixes: [GPSTraceReader.Entry] = []
        if let gps {
            do {
                fixes = try GPSTraceReader.read(path: gps)
            } catch {
                fail("\(error)", code: ExitCodes.dataError)
            }
        }
        var next = 0
        var last = -Double.infinity
        if let imu {
            do {
                let reader = try IMUTraceReader(path: imu)
                var offset = imuOffset ?? 0
                var first = true
                try reader.forEach { raw in
                    var s = raw
                    if first {
                        first = false
                        // A trace whose clock starts near 0 is aligned with the GPS trace's start.
                        if imuOffset == nil, s.t < 1e8, let g = fixes.first, g.at > 1e8 { offset = g.at - s.t }
                    }
                    s.t += offset
                    guard s.t <= end else { return }
                    while next < fixes.count, fixes[next].at <= s.t {
                        analysis.feed(fixes[next].fix, at: fixes[next].at)
                        last = max(last, fixes[next].at)
                        next += 1
                    }
                    analysis.feed(s)
                    last = max(last, s.t)
                }
            } catch {
                fail("\(error)", code: ExitCodes.dataError)
            }
        }
        while next < fixes.count, fixes[next].at <= end {
            analysis.feed(fixes[next].fix, at: fixes[next].at)
            last = max(last, fixes[next].at)
            next += 1
        }
        guard last.isFinite else { fail("the traces hold no samples or fixes", code: ExitCodes.dataError) }
        let summary = analysis.finish(at: stop ?? last)
        if output.json {
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys]
            e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            guard let data = try? e.encode(summary) else { fail("cannot encode the summary", code: 70) }
            print(String(decoding: data, as: UTF8.self))
        } else {
            let units = output.forcedUnits ?? .metric
            print("Distance  \(Formatting.distance(summary.distance, units))")
            print("Elapsed   \(Formatting.duration(summary.elapsed))   Moving \(Formatting.duration(summary.moving))")
            print("Pace      \(Formatting.pace(speed: summary.moving > 0 ? summary.distance / summary.moving : 0, units))")
            print("Steps     \(summary.steps)   cadence \(Int(summary.cadence.rounded())) spm")
            print(String(format: "Elevation +%.0f m / -%.0f m", summary.elevationGain, summary.elevationLoss))
            print("Pauses    \(summary.pauses.count)")
            for p in summary.pauses {
                print(String(format: "  %.2f – %.2f s (detected at %.2f)", p.start, p.end, p.detectedAt))
            }
        }
    }

    private func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("moonrunner analyze: \(message)\n".utf8))
        Foundation.exit(code)
    }
}
