import ArgumentParser
import Foundation
import MoonRunnerCore
import MoonRunnerProtocol

/// Exit codes scripts can rely on (sysexits.h where one fits).
enum ExitCodes {
    /// The daemon answered with ERROR.
    static let refused: Int32 = 1
    /// Bad input data (analyze).
    static let dataError: Int32 = 65
    /// The daemon is not running or not reachable.
    static let unavailable: Int32 = 69
    /// A file could not be read or written.
    static let ioError: Int32 = 74
}

@main
enum Entry {
    /// `moonrunner --socket PATH status` is accepted as well as
    /// `moonrunner status --socket PATH`: options given before the subcommand
    /// are moved after it, where the parser expects them.
    static func main() {
        Moonrunner.main(GlobalOptions.reorder(Array(CommandLine.arguments.dropFirst())))
    }
}

enum GlobalOptions {
    static let withValue: Set<String> = ["--socket"]
    static let flags: Set<String> = ["--json", "--imperial"]

    static func reorder(_ args: [String]) -> [String] {
        var leading: [String] = []
        var i = 0
        while i < args.count {
            let a = args[i]
            let name = a.split(separator: "=", maxSplits: 1).first.map(String.init) ?? a
            if withValue.contains(name) {
                leading.append(a)
                if !a.contains("="), i + 1 < args.count {
                    leading.append(args[i + 1])
                    i += 1
                }
            } else if flags.contains(a) {
                leading.append(a)
            } else {
                break
            }
            i += 1
        }
        guard !leading.isEmpty, i < args.count else { return args }
        return [args[i]] + leading + args[(i + 1)...]
    }
}

struct Moonrunner: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moonrunner",
        abstract: "Control and inspect moonrunnerd, the running and walking computer.",
        discussion: """
            Exit codes: 0 ok, 1 the daemon refused the request (ERROR), 2 usage error,
            65 bad input data, 69 the daemon is not reachable, 74 file I/O error.
            """,
        subcommands: [Status.self, Watch.self, Start.self, Pause.self, Resume.self, Lap.self, Stop.self,
                      Sessions.self, Show.self, Analyze.self]
    )
}

/// Options every daemon-facing subcommand shares.
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: "Control socket path (default: $MOONRUNNER_SOCKET or /run/moonrunner/moonrunner.sock).")
    var socket: String?

    @Flag(name: .long, help: "Print the daemon's JSON reply instead of text.")
    var json = false

    @Flag(name: .long, help: "Show distances in miles and paces in min/mi.")
    var imperial = false

    var socketPath: String {
        socket ?? ProcessInfo.processInfo.environment["MOONRUNNER_SOCKET"] ?? "/run/moonrunner/moonrunner.sock"
    }

    var units: UnitSystem { imperial ? .imperial : .metric }

    func connect() throws -> ControlClient {
        do {
            return try ControlClient(path: socketPath)
        } catch {
            FileHandle.standardError.write(Data("moonrunner: \(error)\n".utf8))
            throw ExitCode(ExitCodes.unavailable)
        }
    }

    /// Sends one request; prints an ERROR reply and exits 1 on refusal.
    func call(_ command: Request.Command) throws -> String {
        let client = try connect()
        let reply: String
        do {
            reply = try client.request(Request(command: command))
        } catch {
            FileHandle.standardError.write(Data("moonrunner: \(error)\n".utf8))
            throw ExitCode(ExitCodes.unavailable)
        }
        if ReplyEncoder.replyClass(of: reply) == "ERROR" {
            if json {
                print(reply)
            } else {
                let e = try? ReplyEncoder.decode(ErrorReply.self, from: reply)
                FileHandle.standardError.write(Data("moonrunner: \(e?.message ?? reply)\n".utf8))
            }
            throw ExitCode(ExitCodes.refused)
        }
        return reply
    }

    /// Prints a STATUS reply as JSON or text.
    func printStatus(_ reply: String) throws {
        if json { print(reply); return }
        let s = try ReplyEncoder.decode(StatusReply.self, from: reply)
        print(Display.status(s, units: units))
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's state and the current session.")
    @OptionGroup var options: ClientOptions

    func run() throws {
        try options.printStatus(try options.call(.status))
    }
}

struct Start: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start a session.")
    @OptionGroup var options: ClientOptions
    @Option(help: "run or walk (default: the daemon's session.activity).")
    var activity: String?

    func run() throws {
        try options.printStatus(try options.call(.start(activity: activity)))
    }
}

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pause the session (it stays paused until resumed).")
    @OptionGroup var options: ClientOptions
    func run() throws { try options.printStatus(try options.call(.pause)) }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Resume a paused session.")
    @OptionGroup var options: ClientOptions
    func run() throws { try options.printStatus(try options.call(.resume)) }
}

struct Lap: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark a lap.")
    @OptionGroup var options: ClientOptions
    func run() throws { try options.printStatus(try options.call(.lap)) }
}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop and save the session.")
    @OptionGroup var options: ClientOptions
    func run() throws { try options.printStatus(try options.call(.stop)) }
}

struct Sessions: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List recorded sessions, newest first.")
    @OptionGroup var options: ClientOptions
    @Option(help: "How many to list.") var limit = 20
    @Option(help: "List sessions older than this id (paging).") var before: Int64?

    func run() throws {
        let reply = try options.call(.sessions(limit: limit, before: before))
        if options.json { print(reply); return }
        let r = try ReplyEncoder.decode(SessionsReply.self, from: reply)
        print(Display.sessions(r.sessions, units: options.units))
    }
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one session in full.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Session id (see `moonrunner sessions`).") var id: Int64

    func run() throws {
        let reply = try options.call(.session(id: id))
        if options.json { print(reply); return }
        let r = try ReplyEncoder.decode(SessionReply.self, from: reply)
        print(Display.session(r, units: options.units))
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow the live status: redraws in a terminal, one line per update when piped.")
    @OptionGroup var options: ClientOptions
    @Option(help: "Stop after this many STATUS updates (0: until interrupted).") var count = 0
    @Flag(help: "Exit when the session stops.") var untilStop = false

    func run() throws {
        let client = try options.connect()
        let terminal = isatty(STDOUT_FILENO) == 1 && !options.json
        var seen = 0
        do {
            try client.send(Request(command: .watch(enable: true)))
            while let line = try client.readLine() {
                if options.json { out(line) }
                switch ReplyEncoder.replyClass(of: line) {
                case "STATUS":
                    let s = try ReplyEncoder.decode(StatusReply.self, from: line)
                    if !options.json {
                        if terminal {
                            out("\u{1B}[H\u{1B}[2J" + Display.status(s, units: options.units))
                        } else {
                            out(Display.statusLine(s, units: options.units))
                        }
                    }
                    seen += 1
                    if count > 0 && seen >= count { return }
                case "EVENT":
                    let e = try ReplyEncoder.decode(EventReply.self, from: line)
                    if !options.json && !terminal { out(Display.event(e)) }
                    if untilStop && e.event == "stop" { return }
                case "ERROR":
                    FileHandle.standardError.write(Data("moonrunner: \(line)\n".utf8))
                    throw ExitCode(ExitCodes.refused)
                default:
                    continue
                }
            }
        } catch let e as ExitCode {
            throw e
        } catch {
            FileHandle.standardError.write(Data("moonrunner: \(error)\n".utf8))
            throw ExitCode(ExitCodes.unavailable)
        }
        FileHandle.standardError.write(Data("moonrunner: the daemon closed the connection\n".utf8))
        throw ExitCode(ExitCodes.unavailable)
    }
}

/// Writes a line straight to standard output (unbuffered), so that a pipe
/// sees each update as it happens.
func out(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
