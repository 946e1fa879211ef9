import ArgumentParser
import Foundation
import MoonRunnerConfig
import MoonRunnerCore
import MoonRunnerTestSupport

/// The synthetic detours and shortcuts (`RejoinScenario`), for
/// the evaluation (`Tests/Tools/eval_rejoin.py`): scores the course matcher on
/// every scenario for many settings at once, or writes scenarios out as
/// files for `moonrunner analyze --gps X.gpsd.json --course X.course.gpx`.
@main
struct CourseScenarios: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "course-scenarios",
        abstract: "Synthetic detours and shortcuts for the course matcher (evaluation tool).",
        subcommands: [Score.self, Write.self, List.self, Trace.self, Cues.self])
}

struct Selection: ParsableArguments {
    @Option(help: "Only these families (street, laps, out_and_back); repeat for several.")
    var family: [String] = []
    @Option(help: "Only scenarios whose name contains this text.") var only: String?

    func scenarios() throws -> [RejoinScenario] {
        let families = try family.map { name throws -> RejoinFamily in
            guard let f = RejoinFamily(rawValue: name) else {
                throw ValidationError("--family \(name): one of \(RejoinFamily.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return f
        }
        return RejoinScenario.grid(families.isEmpty ? RejoinFamily.allCases : families)
            .filter { only == nil || $0.name.contains(only ?? "") }
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the scenarios' names and shapes.")
    @OptionGroup var selection: Selection

    func run() throws {
        for s in try selection.scenarios() {
            let d = s.divergence
            print(String(format: "%@  A-B %.0f m, runner %.0f m out (leaving at %.0f°), course block %.0f m deep", s.name,
                         d.length, d.height, d.departure, d.depth))
        }
    }
}

struct Score: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score the matcher on every scenario for each settings set.",
        discussion: """
            Prints one JSON line per set: {"set": N, "outcomes": [...]}. A set is a JSON object of \
            course settings by name (the keys of `moonrunner analyze --course-option`); without --sets, \
            the shipped settings.
            """)
    @OptionGroup var selection: Selection
    @Option(help: ArgumentHelp("Settings sets, one JSON object per line.", valueName: "file")) var sets: String?
    @Option(help: "engine (the whole offline analysis, as analyze) or matcher (raw fixes into the matcher).")
    var path = "engine"
    @Option(help: "Scenarios run at once.") var jobs = 2

    static let settings = NamedSettings(CourseMatcherConfig.settingsByName)

    func validate() throws {
        guard path == "engine" || path == "matcher" else { throw ValidationError("--path must be engine or matcher") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
    }

    func run() async throws {
        var configs: [CourseMatcherConfig] = [CourseMatcherConfig()]
        if let sets {
            configs = []
            let text = try String(contentsOfFile: sets, encoding: .utf8)
            for (n, line) in text.split(separator: "\n").enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw ValidationError("\(sets):\(n + 1): not a JSON object")
                }
                var values: [String: Double] = [:]
                for (key, value) in object {
                    guard let number = value as? Double ?? (value as? Int).map(Double.init) else {
                        throw ValidationError("\(sets):\(n + 1): \(key) is not a number")
                    }
                    values[key] = number
                }
                do {
                    configs.append(try Self.settings.apply(values, to: CourseMatcherConfig()))
                } catch {
                    throw ValidationError("\(sets):\(n + 1): \(error) (course settings: \(Self.settings.keys.joined(separator: ", ")))")
                }
            }
        }
        let scenarios = try selection.scenarios()
        let engine = path == "engine"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for (n, config) in configs.enumerated() {
            let outcomes = try await Self.score(scenarios, config: config, engine: engine, jobs: jobs)
            let body = try encoder.encode(outcomes)
            print("{\"set\": \(n), \"outcomes\": " + String(decoding: body, as: UTF8.self) + "}")
        }
    }

    static func score(_ scenarios: [RejoinScenario], config: CourseMatcherConfig, engine: Bool,
                      jobs: Int) async throws -> [RejoinOutcome] {
        try await withThrowingTaskGroup(of: (Int, RejoinOutcome).self) { group in
            var results = [RejoinOutcome?](repeating: nil, count: scenarios.count)
            var next = 0
            func add() {
                let i = next, s = scenarios[i]
                group.addTask {
                    let run = try RejoinRun(s)
                    return (i, engine ? run.analysed(config) : run.matched(config))
                }
                next += 1
            }
            while next < min(jobs, scenarios.count) { add() }
            while let (i, o) = try await group.next() {
                results[i] = o
                if next < scenarios.count { add() }
            }
            return results.compactMap { $0 }
        }
    }
}

struct Write: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write scenarios as X.gpsd.json, X.course.gpx and X.truth.json into a folder.")
    @OptionGroup var selection: Selection
    @Argument(help: "The folder (created when missing).") var folder: String

    func run() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for s in try selection.scenarios() {
            let run = try RejoinRun(s)
            let base = (folder as NSString).appendingPathComponent(s.name)
            try ScenarioFiles.gpsd(run).write(toFile: base + ".gpsd.json", atomically: true, encoding: .utf8)
            try ScenarioFiles.gpx(run).write(toFile: base + ".course.gpx", atomically: true, encoding: .utf8)
            try ScenarioFiles.truth(run).write(to: URL(fileURLWithPath: base + ".truth.json"))
            print(base)
        }
    }
}

struct Trace: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print, second by second, the truth beside what the matcher made of it.")
    @OptionGroup var selection: Selection
    @Flag(help: "The whole offline analysis (as analyze) instead of raw fixes into the matcher.") var engine = false

    func run() throws {
        for s in try selection.scenarios() {
            let run = try RejoinRun(s)
            if engine {
                var config = EngineConfig()
                config.navigation.matcher = CourseMatcherConfig()
                var analysis = TraceAnalysis(config: config, course: FollowedCourse(id: nil, name: s.name, geometry: run.geometry))
                for f in run.fixes { analysis.feed(f, at: f.time) }
                let summary = analysis.finish(at: (run.fixes.last?.time ?? RejoinRun.epoch) + 1)
                for e in summary.events where e.kind == .offCourse || e.kind == .onCourse {
                    print("# \(e.kind.rawValue) time \(e.time - RejoinRun.epoch) detected \(e.detectedAt - RejoinRun.epoch)")
                }
                for e in summary.courseTimeline ?? [] {
                    let i = Int((e.time - RejoinRun.epoch).rounded())
                    let tr = run.truth[min(max(i, 0), run.truth.count - 1)]
                    func f1(_ x: Double?) -> String { x.map { String(format: "%.1f", $0) } ?? "-" }
                    print("\(i)\t\(f1(tr.progress))\t\(f1(tr.distance))\t\(tr.ownPath ? 1 : 0)\t\(tr.along ? 1 : 0)\t\(f1(e.progress))\t\(f1(e.distanceToCourse))\t\(e.offCourse ? 1 : 0)")
                }
                continue
            }
            print("# \(s.name): leave \(Int(run.leave)) m, rejoin \(Int(run.rejoin)) m, first off \(run.firstOff ?? -1) s, back \(run.back ?? -1) s, near \(run.near ?? -1) s")
            print("t\ttrue_progress\ttrue_distance\town\talong\tprogress\tdistance\ton\toff\talert")
            var m = CourseMatcher(geometry: run.geometry)
            for i in run.fixes.indices {
                let f = run.input(i)
                let (match, transition) = m.update(latitude: f.latitude, longitude: f.longitude, sigma: f.sigma,
                                                   speed: f.speed, heading: f.heading, at: f.t)
                let tr = run.truth[i]
                let alert: String = switch transition {
                case let .offCourse(since)?: "off_course since \(since)"
                case let .onCourse(since)?: "on_course since \(since)"
                case nil: ""
                }
                func f1(_ x: Double?) -> String { x.map { String(format: "%.1f", $0) } ?? "-" }
                print("\(Int(f.t))\t\(f1(tr.progress))\t\(f1(tr.distance))\t\(tr.ownPath ? 1 : 0)\t\(tr.along ? 1 : 0)\t\(f1(match.progress))\t\(f1(match.distance))\t\(match.onCourse ? 1 : 0)\t\(match.offCourse ? 1 : 0)\t\(alert)")
            }
        }
    }
}
