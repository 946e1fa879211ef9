import ArgumentParser
import Foundation
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerTestSupport

/// The cue scenarios (`CueScenario`), for `Tests/Tools/eval_cues.py`: scores the
/// generated families, or writes a runner following a course file as a gpsd
/// trace for `moonrunner analyze --course`.
struct Cues: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn-by-turn cues: the generated families, and runs along a course file.",
        subcommands: [CueScore.self, Follow.self])
}

struct CueScore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Score every generated cue scenario (CueScenario.grid()) through the whole analysis; one JSON array.")
    @Option(help: "Only scenarios whose name contains this text.") var only: String?

    func run() throws {
        let scenarios = CueScenario.grid().filter { only == nil || $0.name.contains(only ?? "") }
        var outcomes: [CueOutcome] = []
        for s in scenarios { outcomes.append(try CueRun(s).score()) }
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        print(String(decoding: try e.encode(outcomes), as: UTF8.self))
    }
}

struct Follow: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a runner following a course file's line exactly, at a steady speed with GPS noise, as gpsd's JSON.",
        discussion: """
            One fix a second from the simulated receiver (a wander correlated over 40 s plus white noise, \
            1σ per axis --noise metres, Doppler speed and course), starting at the course's first point at \
            UNIX time 1 700 000 000 and ending at its last.
            """)
    @Option(help: "The course file (GPX, TCX or FIT).") var course: String
    @Option(help: "m/s.") var speed: Double
    @Option(help: "1σ of the GPS error per axis, metres.") var noise: Double
    @Option(help: "Seed of the noise.") var seed: UInt64 = 1
    @Option(help: "Where to write the trace.") var out: String

    func validate() throws {
        guard speed > 0, noise >= 0 else { throw ValidationError("--speed must be positive and --noise not negative") }
    }

    func run() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: course))
        let parsed = try CourseFile.read(data, format: CourseFileFormat(fileName: course))
        guard let first = parsed.points.first else { throw ValidationError("\(course): no points") }
        let plane = LocalTangentPlane(originLat: first.latitude, originLon: first.longitude)
        var line: [(Double, Double)] = []
        for p in parsed.points {
            let xy = plane.project(lat: p.latitude, lon: p.longitude)
            if let last = line.last, hypot(xy.east - last.0, xy.north - last.1) < 0.05 { continue }
            line.append((xy.east, xy.north))
        }
        var cum = [0.0]
        for (a, b) in zip(line, line.dropFirst()) { cum.append(cum[cum.count - 1] + hypot(b.0 - a.0, b.1 - a.1)) }
        var rx = SimulatedGPSReceiver(seed: seed)
        rx.projection = plane
        rx.white = 0.5 * noise
        rx.wander = (1 - 0.25).squareRoot() * noise
        var fixes: [GPSFix] = []
        var t = 0.0, i = 0
        while speed * t <= cum[cum.count - 1] {
            let s = speed * t
            while i + 2 < cum.count && cum[i + 1] < s { i += 1 }
            let a = line[i], b = line[i + 1]
            let span = max(cum[i + 1] - cum[i], 1e-9)
            let f = min(1, max(0, (s - cum[i]) / span))
            let (dx, dy) = ((b.0 - a.0) / span, (b.1 - a.1) / span)
            fixes.append(rx.fix(t: t, east: a.0 + f * (b.0 - a.0), north: a.1 + f * (b.1 - a.1), ve: speed * dx, vn: speed * dy))
            t += 1
        }
        try ScenarioFiles.gpsd(fixes).write(toFile: out, atomically: true, encoding: .utf8)
    }
}
