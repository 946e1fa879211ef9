import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerSystem
import MoonRunnerTerrain

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the MoonRunner core offline over recorded traces (no daemon needed).",
        discussion: """
            IMU traces are CSV (t,ax,ay,az[,gx,gy,gz]; g and rad/s), plain or gzipped; GPS traces are
            gpsd JSON as `gpspipe -w` prints it; barometer traces are CSV (t,pressure_pa,temperature_c),
            plain or gzipped, on the GPS trace's clock; heart-rate traces are CSV (t,bpm,rr_ms; bpm empty
            where the strap sent none, RR intervals in ms space separated) on the same clock. The session
            starts at the first input and stops at the last. Times in the output are on the traces' own clock.
            """)

    @Option(help: "IMU trace (CSV or CSV.gz).") var imu: String?
    @Option(help: "GPS trace (gpsd JSON lines).") var gps: String?
    @Option(help: "Barometer trace (CSV t,pressure_pa,temperature_c or CSV.gz), on the GPS trace's clock.")
    var baro: String?
    @Option(help: "Heart-rate trace (CSV t,bpm,rr_ms), on the GPS trace's clock.") var hr: String?
    @Option(help: "Seconds added to heart-rate times (default: whole GPS week roll-overs that separate it from the GPS trace).")
    var hrOffset: Double?
    @Option(help: "Age, years (maximum heart rate by Tanaka, calories from heart rate).") var age: Double = 35
    @Option(help: "Sex for the heart-rate equations: male, female or unspecified.") var sex: String = "unspecified"
    @Option(help: "Maximum heart rate, bpm (default: 208 − 0.7 × age).") var maxHr: Double?
    @Option(help: "Resting heart rate, bpm.") var restingHr: Double = 60
    @Option(help: "Heart-rate zones: max (percent of maximum), reserve (Karvonen) or bpm.") var zoneModel: String = "max"
    @Option(help: "Where zones 2-5 begin: four numbers, percent or bpm as --zone-model says.") var zoneBounds: String = "60,70,80,90"
    @Option(help: "Step detector: \(StepDetectorKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var detector: String = StepDetectorKind.adaptive.rawValue
    @Option(help: ArgumentHelp(
        "JSON object of adaptive step detector parameters to use instead of the defaults (evaluation only).",
        valueName: "file"))
    var stepParameters: String?
    @Option(help: "Activity: \(Activity.allCases.map(\.rawValue).joined(separator: ", ")) (its auto-pause, speed gates, steps and calories).",
            completion: .list(Activity.allCases.map(\.rawValue)))
    var activity: String = Activity.run.rawValue
    @Option(help: "A course to follow (GPX, TCX or FIT): adds course_timeline and the course events.",
            completion: .file(extensions: ["gpx", "tcx", "fit"]))
    var course: String?
    @Option(help: "A planned workout to run (a FIT workout file or the text form): adds its events and workout_steps.",
            completion: .file(extensions: ["fit", "txt"]))
    var workout: String?
    @Option(name: .customLong("lap"), parsing: .singleValue,
            help: "A lap command at this instant of the traces' clock (ends an open workout step); repeat for several.")
    var laps: [Double] = []
    @Option(name: .customLong("course-option"), parsing: .singleValue,
            help: ArgumentHelp("Override a course-matching setting, KEY=VALUE (for evaluation): "
                + AnalyzeSetup.courseSettings.keys.joined(separator: ", ") + ".", valueName: "key=value"))
    var courseOptions: [String] = []
    @Option(help: "A folder of terrain tiles (SRTM .hgt, Copernicus GeoTIFF): the climb comes from the ground under the track.",
            completion: .directory)
    var dem: String?
    @Option(name: .customLong("terrain-option"), parsing: .singleValue,
            help: ArgumentHelp("Override a terrain setting, KEY=VALUE (for evaluation): "
                + AnalyzeSetup.terrainSettings.keys.joined(separator: ", ") + ".", valueName: "key=value"))
    var terrainOptions: [String] = []
    @Option(name: .customLong("activity-option"), parsing: .singleValue,
            help: ArgumentHelp("Override an activity's auto-pause setting, KEY=VALUE (for evaluation): "
                + ActivityOptions.settings.keys.joined(separator: ", ") + ".", valueName: "key=value"))
    var activityOptions: [String] = []
    @Option(help: "Seconds added to IMU times (default: aligns a 0-based IMU trace with the GPS trace's start).")
    var imuOffset: Double?
    @Flag(help: "Disable automatic pause detection.") var noAutoPause = false
    @Option(help: "Start the session at this instant of the traces' clock (default: the first input); inputs before it are seen while idle, as a daemon sees them before ?START.")
    var start: Double?
    @Option(help: "Stop the session at this instant (default: the last input); later inputs are ignored.")
    var stop: Double?
    @Option(help: "Body mass for the calories, kg.") var bodyMass: Double = 70
    @Flag(help: "With --json: add the recorded track (time, fix_time, lat, lon, alt of every point).") var track = false
    /// `--json` and `--imperial`/`--metric` are the options every subcommand
    /// shares (the root command declares them too; declaring the same group
    /// here is what hands them to this subcommand).
    @OptionGroup var output: ClientOptions

    /// What the options mean, worked out once by `validate()`. Not an option:
    /// ArgumentParser keeps a property without a property wrapper as it is.
    private var setup = AnalyzeSetup()

    mutating func validate() throws {
        guard imu != nil || gps != nil || baro != nil || hr != nil else {
            throw ValidationError("give --imu FILE, --gps FILE, --baro FILE, --hr FILE, or several of them")
        }
        setup = try AnalyzeSetup(self)
    }

    func run() throws {
        let config = engineConfig()
        let followed = followedCourse()
        var analysis = TraceAnalysis(config: config, profile: setup.profile, startAt: start, course: followed,
                                     workout: plannedWorkout(config.heartRate), terrain: terrain())
        var timed = TimedInputs(fixes: load(gps, GPSTraceReader.read(path:)),
                                readings: load(baro, BaroTraceReader.readAll(path:)),
                                beats: load(hr, HeartRateTraceReader.readAll(path:)))
        timed.alignHeartRate(offset: hrOffset)
        timed.laps = laps.sorted()
        let end = stop ?? .infinity
        if let imu { feedIMU(imu, until: end, timed: &timed, analysis: &analysis) }
        timed.feed(until: end, into: &analysis)
        guard timed.last.isFinite else { fail("the traces hold no samples or fixes", code: ExitCodes.dataError) }
        let summary = analysis.finish(at: stop ?? timed.last, calories: CalorieModel(bodyMass: bodyMass))
        if output.json {
            printJSON(summary, track: analysis.track)
        } else {
            printText(summary, course: followed?.name)
        }
    }

    /// The workout of `--workout`, resolved with the wearer's profile; one that cannot be read or run ends the command.
    private func plannedWorkout(_ profile: HeartRateProfile) -> WorkoutPlan? {
        guard let workout else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: workout))
            return try WorkoutPlan(try WorkoutFile.read(data), heartRate: profile)
        } catch let e as WorkoutFileError {
            fail("\(workout): \(e.message)", code: ExitCodes.dataError)
        } catch let e as WorkoutError {
            fail("\(workout): \(e)", code: ExitCodes.dataError)
        } catch {
            fail("\(workout): \(fileErrorText(error))", code: ExitCodes.dataError)
        }
    }

    /// The engine as the options set it up; a step-parameter file that cannot be read ends the command.
    private func engineConfig() -> EngineConfig {
        var config = setup.config
        if let stepParameters {
            do {
                config.stepParameters = try StepParameterFile.read(path: stepParameters)
            } catch {
                fail("\(error)", code: ExitCodes.dataError)
            }
        }
        return config
    }

    /// The terrain model of `--dem`: a folder that is not there ends the command; a tile that
    /// cannot be used is said on standard error and skipped, as the daemon does.
    private func terrain() -> DEMDirectory? {
        guard let dem else { return nil }
        var st = stat()
        guard stat(dem, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { fail("\(dem): no such folder", code: ExitCodes.ioError) }
        let folder = DEMDirectory(path: dem, cacheDirectory: DEMCommand.cacheFolder())
        for t in folder.tiles where !t.used {
            OutputFile.standardError.write("moonrunner analyze: \(t.file): \(t.problem ?? "not used"); skipped\n")
        }
        return folder
    }

    /// The course of `--course`; one that cannot be read ends the command.
    private func followedCourse() -> FollowedCourse? {
        guard let course else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: course))
            let parsed = try CourseFile.read(data, format: CourseFileFormat(fileName: course))
            return try FollowedCourse(id: nil, course: parsed)
        } catch let e as CourseFileError {
            fail("\(course): \(e.message)", code: ExitCodes.dataError)
        } catch {
            fail("\(course): \(fileErrorText(error))", code: ExitCodes.dataError)
        }
    }

    /// The entries of an optional trace; one that cannot be read ends the command.
    private func load<Entry>(_ path: String?, _ read: (String) throws -> [Entry]) -> [Entry] {
        guard let path else { return [] }
        do {
            return try read(path)
        } catch {
            fail("\(error)", code: ExitCodes.dataError)
        }
    }

    /// Feeds the IMU trace up to `end`, each sample after the other inputs
    /// up to its time. A trace whose clock starts near 0 is aligned with the
    /// GPS trace's start (unless `--imu-offset` says otherwise).
    private func feedIMU(_ path: String, until end: Double, timed: inout TimedInputs, analysis: inout TraceAnalysis) {
        do {
            let reader = try IMUTraceReader(path: path)
            var offset = imuOffset ?? 0
            var first = true
            try reader.forEach { raw in
                var s = raw
                if first {
                    first = false
                    if imuOffset == nil, s.t < 1e8, let g = timed.fixes.first, g.at > 1e8 { offset = g.at - s.t }
                }
                s.t += offset
                guard s.t <= end else { return }
                timed.feed(until: s.t, into: &analysis)
                analysis.feed(s)
                timed.last = max(timed.last, s.t)
            }
        } catch {
            fail("\(error)", code: ExitCodes.dataError)
        }
    }

    private func printJSON(_ summary: AnalysisSummary, track: [TrackPoint]) {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? e.encode(summary) else { fail("cannot encode the summary", code: 70) }
        var text = String(decoding: data, as: UTF8.self)
        if self.track, text.hasSuffix("}"), let points = try? e.encode(track) {
            text = String(text.dropLast()) + ",\"track\":" + String(decoding: points, as: UTF8.self) + "}"
        }
        print(text)
    }

    private func printText(_ summary: AnalysisSummary, course: String?) {
        let units = output.forcedUnits ?? .metric
        print("Distance  \(Formatting.distance(summary.distance, units))")
        print("Elapsed   \(Formatting.duration(summary.elapsed))   Moving \(Formatting.duration(summary.moving))")
        print("Pace      \(Formatting.pace(speed: summary.moving > 0 ? summary.distance / summary.moving : 0, units))")
        print("Steps     \(summary.steps)   cadence \(Int(summary.cadence.rounded())) spm")
        print("Elevation \(Display.elevation(summary.elevationGain, summary.elevationLoss, units))"
              + " (\(summary.altitudeSource.rawValue))")
        print("Calories  \(Int(summary.caloriesKcal.rounded())) kcal (\(summary.caloriesMethod == .heartRate ? "from heart rate" : "ACSM, from speed"))")
        if let average = summary.hrAverage, let maximum = summary.hrMax {
            print("Heart     avg \(Int(average.rounded())) bpm, max \(Int(maximum.rounded())) bpm, TRIMP \(Int(summary.trimp.rounded()))")
            print("Zones     " + summary.hrZoneSeconds.enumerated().map { "\($0.offset + 1): \(Formatting.duration($0.element))" }
                .joined(separator: "  "))
        }
        if summary.hr.outOfOrder > 0 {
            print("          \(summary.hr.outOfOrder) heart-rate reading(s) stamped before the one above dropped")
        }
        print("Pauses    \(summary.pauses.count)")
        if let timeline = summary.courseTimeline, let name = course {
            let last = timeline.last
            print("Course    \(name): " + (last?.progress.map { "\($0.fixed(0)) m done, \((last?.toGo ?? 0).fixed(0)) m to go" }
                ?? "off course at the end"))
            for e in summary.events where e.kind.isNavigation {
                print("  \(e.time.fixed(2)) s  \(e.kind.rawValue)" + (e.detail.map { " (\($0))" } ?? ""))
            }
        }
        for s in summary.workoutSteps ?? [] {
            let count = s.step.index + 1, pace = s.averageSpeed.map { Formatting.pace(speed: $0, units) } ?? "-"
            print("Step \(count) \(s.step.name ?? s.step.intensity.rawValue)  \(s.start.fixed(1))–\(s.end.fixed(1)) s  "
                  + "\(Formatting.distance(s.distance, units))  \(pace)"
                  + (s.averageHeartRate.map { "  \(Int($0.rounded())) bpm" } ?? "")
                  + (s.timeInTarget.map { "  in target \(Formatting.duration($0))" } ?? "") + (s.completed ? "" : "  (stopped)"))
        }
        for p in summary.pauses {
            print("  \(p.start.fixed(2)) – \(p.end.fixed(2)) s (detected at \(p.detectedAt.fixed(2)))")
        }
    }

    private func fail(_ message: String, code: Int32) -> Never {
        OutputFile.standardError.write("moonrunner analyze: \(message)\n")
        Glibc.exit(code)
    }
}

/// The fixes, barometer and heart-rate readings of the traces, fed to the
/// analysis in time order between the IMU's samples.
private struct TimedInputs {
    var fixes: [GPSTraceReader.Entry]
    var readings: [BaroSample]
    var beats: [HeartRateSample]
    /// Lap commands (`--lap`), in time order.
    var laps: [Double] = []
    private var nextLap = 0
    private var next = 0
    private var nextReading = 0
    private var nextBeat = 0
    /// The latest instant fed, of any input (the IMU's too).
    var last = -Double.infinity

    init(fixes: [GPSTraceReader.Entry], readings: [BaroSample], beats: [HeartRateSample]) {
        self.fixes = fixes
        self.readings = readings
        self.beats = beats
    }

    /// Moves the heart rate onto the GPS trace's clock: by `offset` when
    /// given, else by the whole GPS week roll-overs between the two (a trace
    /// on the watch's clock lies 1024 weeks from a log gpsd moved forward).
    mutating func alignHeartRate(offset: Double?) {
        if let first = beats.first, let fix = fixes.first {
            let shift = offset ?? WeekRollover.alignment(traceStart: first.t, receiverTime: fix.at)
            for i in beats.indices { beats[i].t += shift }
        } else if let shift = offset {
            for i in beats.indices { beats[i].t += shift }
        }
    }

    /// Feeds the fixes, barometer and heart-rate readings up to `t` (everything with nil), in time
    /// order; a heart rate before a fix of the same instant, so that the point carries it.
    mutating func feed(until t: Double, into analysis: inout TraceAnalysis) {
        while true {
            let fixAt = next < fixes.count ? fixes[next].at : .infinity
            let readingAt = nextReading < readings.count ? readings[nextReading].t : .infinity
            let beatAt = nextBeat < beats.count ? beats[nextBeat].t : .infinity
            let lapAt = nextLap < laps.count ? laps[nextLap] : .infinity
            let first = min(fixAt, readingAt, beatAt, lapAt)
            guard first.isFinite, first <= t else { return }
            if lapAt == first {
                analysis.lap(at: lapAt)
                nextLap += 1
            } else if beatAt == first {
                analysis.feed(beats[nextBeat])
                nextBeat += 1
            } else if fixAt <= readingAt {
                analysis.feed(fixes[next].fix, at: fixAt)
                next += 1
            } else {
                analysis.feed(readings[nextReading])
                nextReading += 1
            }
            last = max(last, first)
        }
    }
}
