import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSystem

// The workout library: ?WORKOUTS, ?WORKOUT, ?WORKOUT_DELETE and the upload
// (?WORKOUT_ADD with its ?WORKOUT_DATA pieces, as a course file's).

struct WorkoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workout",
        abstract: "Planned workouts to run: add a FIT workout file or the text form, list, show, remove.",
        discussion: "Run one with `moonrunner start --workout ID` (with or without --course). The text form: "
            + "\"15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy\" (moonrunner-protocol(7), WORKOUT_ADD).",
        subcommands: [WorkoutAdd.self, WorkoutList.self, WorkoutShow.self, WorkoutRemove.self])
}

struct WorkoutAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a workout from a FIT workout file, a text file or --text (?WORKOUT_ADD).",
        discussion: "The file is sent to the daemon in pieces, as a course file is. "
            + "The daemon checks it with the wearer's heart-rate profile before storing it; a file that is not "
            + "a workout, a step that cannot be run or a repeat that points nowhere is refused with its reason and "
            + "nothing is stored.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "The workout file (FIT, or the text form).", completion: .file(extensions: ["fit", "txt"]))
    var file: String?
    @Option(help: "The workout in the text form, instead of a file.") var text: String?
    @Option(help: "Name of the workout (default: the name in the file, else \"workout\").") var name: String?

    func validate() throws {
        guard (file == nil) != (text == nil) else { throw ValidationError("give a workout FILE or --text, one of them") }
        if let n = name, n.count > 200 { throw ValidationError("--name may have at most 200 characters") }
    }

    func run() throws {
        let data: Data
        if let text {
            data = Data(text.utf8)
        } else {
            let path = file ?? ""
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw fail("cannot read \(path): \(fileErrorText(error))", ExitCodes.ioError)
            }
            guard !data.isEmpty else { throw fail("\(path) is empty: not a workout", ExitCodes.dataError) }
        }
        // --text is the text form, a .fit file FIT; for any other the daemon looks at the bytes.
        let ext = file.map { URL(filePath: $0, directoryHint: .notDirectory).pathExtension.lowercased() }
        let format = text != nil ? "text" : ext == "fit" ? "fit" : nil
        let (reply, _) = try options.upload(FileUpload.lines(for: data, kind: .workout, name: name, format: format))
        if options.json { out(reply); return }
        let r = try options.decode(WorkoutReply.self, reply)
        out("added workout #\(r.workout.id)")
        out(WorkoutDisplay.workout(r.workout))
    }
}

struct WorkoutList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the workouts, newest first (?WORKOUTS).")
    @OptionGroup var options: ClientOptions

    func run() throws {
        let reply = try options.call(.workouts)
        if options.json { out(reply); return }
        out(WorkoutDisplay.list(try options.decode(WorkoutsReply.self, reply).workouts))
    }
}

struct WorkoutShow: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show",
                                                    abstract: "Show a workout and its steps as run (?WORKOUT).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Workout id (see `moonrunner workout list`).") var id: Int64

    func run() throws {
        let reply = try options.call(.workout(id: id))
        if options.json { out(reply); return }
        out(WorkoutDisplay.workout(try options.decode(WorkoutReply.self, reply).workout))
    }
}

struct WorkoutRemove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a workout (?WORKOUT_DELETE).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Workout id (see `moonrunner workout list`).") var id: Int64

    func run() throws {
        let reply = try options.call(.workoutDelete(id: id))
        if options.json { out(reply); return }
        out("removed workout #\(try options.decode(WorkoutDeletedReply.self, reply).workout)")
    }
}

/// The workout replies as the CLI prints them. Pure.
enum WorkoutDisplay {
    static func list(_ workouts: [WorkoutInfo]) -> String {
        guard !workouts.isEmpty else { return "no workouts; add one with `moonrunner workout add FILE`" }
        return workouts.map { "#\($0.id)  \($0.name)  \($0.steps) steps  \($0.text)" }.joined(separator: "\n")
    }

    static func workout(_ w: WorkoutInfo) -> String {
        var lines = ["#\(w.id) \(w.name) (\(w.sport ?? "any sport"), \(w.format)): \(w.steps) steps", "  \(w.text)"]
        for s in w.plan ?? [] { lines.append("  " + step(s, of: w.steps)) }
        return lines.joined(separator: "\n")
    }

    /// "3/14 interval (2 of 6): 800 m @ 3:50-4:00/km".
    static func step(_ s: PlannedStep, of count: Int) -> String {
        let round = s.rounds > 1 ? " (\(s.round) of \(s.rounds))" : ""
        let end: String = switch s.end {
        case let .time(t): Formatting.duration(t)
        case let .distance(d): d >= 1000 ? "\((d / 1000).fixed(2)) km" : "\(Int(d.rounded())) m"
        case .lap: "until lap"
        case let .heartRateAbove(v): "until HR > \(Int(v.rounded()))"
        case let .heartRateBelow(v): "until HR < \(Int(v.rounded()))"
        }
        return "\(s.index + 1)/\(count) \(s.name ?? s.intensity.rawValue)\(round): \(end)" + target(s.target)
    }

    static func target(_ t: TargetBand?) -> String {
        guard let t else { return "" }
        switch t.measure {
        case .pace:
            return " @ \(Formatting.pace(speed: t.high, .metric))-\(Formatting.pace(speed: t.low, .metric))"
        case .hr:
            return t.zone.map { " @ zone \($0)" } ?? " @ \(Int(t.low.rounded()))-\(Int(t.high.rounded())) bpm"
        case .cadence:
            return " @ \(Int(t.low.rounded()))-\(Int(t.high.rounded())) spm"
        }
    }
}
