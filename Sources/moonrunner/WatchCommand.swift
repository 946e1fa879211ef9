import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerProtocol

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow the live session (?WATCH): one screen that redraws in a terminal, one line per update when piped.",
        discussion: "Ends with 0 after --count updates or, with --until-stop, when the session stops; with 69 when the "
            + "daemon goes away.")
    @OptionGroup var options: ClientOptions
    @Option(help: "Stop after this many STATUS updates (0: until interrupted).") var count = 0
    @Flag(help: "Exit when the session stops.") var untilStop = false

    func run() throws {
        var untimed = options
        untimed.timeout = 0 // updates come every second; waiting is the point
        let connection = try untimed.connect()
        let terminal = isatty(STDOUT_FILENO) == 1 && !options.json
        var screen = terminal ? LiveScreen() : nil
        screen?.begin()
        defer { screen?.end() }
        var seen = 0
        do {
            try connection.send(Request(command: .watch(enable: true)))
            while let line = try connection.readLine() {
                if options.json { out(line) }
                switch ReplyEncoder.replyClass(of: line) {
                case "STATUS":
                    let s = try options.decode(StatusReply.self, line)
                    let units = options.units(daemon: s.units)
                    if let screen {
                        screen.draw(s, units: units)
                    } else if !options.json {
                        out(Display.statusLine(s, units: units))
                    }
                    seen += 1
                    if count > 0 && seen >= count { return }
                case "EVENT":
                    let e = try options.decode(EventReply.self, line)
                    if screen != nil {
                        screen?.note(e)
                    } else if !options.json {
                        out(Display.event(e))
                    }
                    if untilStop && e.event == "stop" { return }
                case "ERROR":
                    screen?.end()
                    screen = nil
                    try options.check(line)
                default:
                    continue
                }
            }
        } catch let e as ExitCode {
            throw e
        } catch {
            screen?.end()
            screen = nil
            throw fail("\(error)", ExitCodes.unavailable)
        }
        screen?.end()
        screen = nil
        throw fail("the daemon closed the connection", ExitCodes.unavailable)
    }
}

/// The terminal view of `watch`: redraws in place (cursor home, each line
/// cleared to its end) instead of clearing the screen, so it does not
/// flicker; hides the cursor and puts it back on exit, Ctrl-C included.
struct LiveScreen {
    private var events: [String] = []
    private static let esc = "\u{1B}["
    private var signalSources: [any DispatchSourceSignal] = []

    mutating func begin() {
        write(Self.esc + "?25l" + Self.esc + "2J")
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                OutputFile.standardOutput.write(Self.esc + "?25h\n")
                exit(128 + sig)
            }
            source.resume()
            signalSources.append(source)
        }
    }

    func end() {
        write(Self.esc + "?25h")
    }

    mutating func note(_ e: EventReply) {
        events.append("\(clock(e.time))  \(Display.event(e))")
        if events.count > 5 { events.removeFirst(events.count - 5) }
    }

    func draw(_ s: StatusReply, units: UnitSystem) {
        var title = "MoonRunner  \(s.state.rawValue)"
        if let id = s.session { title += " · \(s.activity ?? "") #\(id)" }
        var lines = [title + "   " + clock(s.time), String(repeating: "─", count: 56)]
        let shown = Display.profile(s.activity)
        lines += [
            "Distance   \(Formatting.distance(s.distanceM, units))",
            "Time       \(Formatting.duration(s.elapsedS))   moving \(Formatting.duration(s.movingS))",
            (shown.showsSpeed ? "Speed      " : "Pace       ")
                + "\(Display.rate(s.speedMps, shown, units))   avg \(Display.rate(s.avgSpeedMps, shown, units))",
            shown.countsSteps ? "Steps      \(s.steps)   cadence \(Int(s.cadenceSpm.rounded())) spm" : "",
            "Elevation  \(Display.elevation(s.elevationGainM, s.elevationLossM, units))   laps \(s.laps)"
                + (shown.tellsClimbRate ? s.climbRateMPerH.map { "   climbing \(Formatting.climbRate($0, units))" } ?? "" : ""),
        ].filter { !$0.isEmpty }
        if let hr = Display.heartRate(s) { lines.append("Heart      \(hr)") }
        // Its labels are a column narrower than this screen's.
        lines += Display.navigation(s, units: units).map { $0.prefix(10) + " " + $0.dropFirst(10) }
        lines += [
            "GPS \(s.gps.health.rawValue) (\(s.gps.grade.rawValue), \(s.gps.fixes) fixes)   IMU \(s.imu.health.rawValue)   "
                + "store \(s.store.health.rawValue)",
            String(repeating: "─", count: 56),
        ]
        lines += events.isEmpty ? ["no events yet"] : events
        lines.append("")
        lines.append("Ctrl-C to quit")
        write(Self.esc + "H" + lines.map { $0 + Self.esc + "K" }.joined(separator: "\n") + "\n" + Self.esc + "J")
    }

    private func clock(_ t: Double) -> String {
        LocalTime.clock(t)
    }

    private func write(_ text: String) {
        OutputFile.standardOutput.write(text)
    }
}
