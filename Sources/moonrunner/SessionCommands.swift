import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerProtocol

// The live session: ?STATUS and the state changes. Each prints the STATUS
// the daemon answers with.

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's state and the current session (?STATUS).")
    @OptionGroup var options: ClientOptions

    func run() throws {
        try options.printStatus(try options.call(.status))
    }
}

struct Start: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start a session, optionally following a course or heading for a point, running a workout (?START).")
    @OptionGroup var options: ClientOptions
    @Option(help: "\(RequestParser.activities.joined(separator: ", ")) (default: the daemon's session.activity).",
            completion: .list(RequestParser.activities))
    var activity: String?
    @Option(help: "Follow this course (see `moonrunner course list`).") var course: Int64?
    @Option(help: "Run this workout (see `moonrunner workout list`).") var workout: Int64?
    @Option(help: ArgumentHelp("Head for this point: latitude,longitude in degrees, e.g. 51.5007,-0.1246.",
                               valueName: "lat,lon"))
    var to: String?

    func validate() throws {
        if let a = activity, !RequestParser.activities.contains(a) {
            throw ValidationError("--activity must be one of \(RequestParser.activities.joined(separator: ", "))")
        }
        if let c = course, c < 1 { throw ValidationError("--course must be a course id (1 or more)") }
        if let w = workout, w < 1 { throw ValidationError("--workout must be a workout id (1 or more)") }
        if let to, Self.point(to) == nil {
            throw ValidationError("--to must be LAT,LON in degrees (latitude -90..90, longitude -180..180), e.g. 51.5007,-0.1246")
        }
    }

    static func point(_ text: String) -> GeoPoint? {
        let parts = text.split(separator: ",").map { $0.trimmingSpacesAndTabs() }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else { return nil }
        let p = GeoPoint(latitude: lat, longitude: lon)
        return p.isValid ? p : nil
    }

    func run() throws {
        try options.printStatus(try options.call(.start(activity: activity, course: course, destination: to.flatMap(Self.point),
                                                               workout: workout)))
    }
}

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pause the session; it stays paused until resumed (?PAUSE).")
    @OptionGroup var options: ClientOptions
    func run() throws { try options.printStatus(try options.call(.pause)) }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Resume a paused session (?RESUME).")
    @OptionGroup var options: ClientOptions
    func run() throws { try options.printStatus(try options.call(.resume)) }
}

struct Lap: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark a lap (?LAP).")
    @OptionGroup var options: ClientOptions
    func run() throws { try options.printStatus(try options.call(.lap)) }
}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop and save the session (?STOP).")
    @OptionGroup var options: ClientOptions
    func run() throws { try options.printStatus(try options.call(.stop)) }
}

struct Announce: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mute or unmute every announcer for a group run (?ANNOUNCE); without a flag, say which it is.")
    @OptionGroup var options: ClientOptions
    @Flag(help: "Ask every announcer to keep silent.") var mute = false
    @Flag(help: "Let the announcers speak again.") var unmute = false

    func validate() throws {
        if mute && unmute { throw ValidationError("give --mute or --unmute, not both") }
    }

    func run() throws {
        let reply = try options.call(mute || unmute ? .announce(quiet: mute) : .status)
        if options.json { out(reply); return }
        let s = try options.decode(StatusReply.self, reply)
        out(s.quiet == true ? "announcements muted" : "announcements on")
    }
}
