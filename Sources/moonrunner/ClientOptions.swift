import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerClient
import MoonRunnerCore
import MoonRunnerProtocol

/// Options every daemon-facing subcommand shares. They may also be given
/// before the subcommand (see `GlobalOptions`).
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Control socket path (default: $MOONRUNNER_SOCKET or /run/moonrunner/moonrunner.sock).",
                                            valueName: "path"),
            completion: .file())
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for the daemon's reply (0: forever).", valueName: "seconds"))
    var timeout: Double = 10

    @Flag(name: .long, help: "Print the daemon's JSON replies as they are, one per line.")
    var json = false

    @Flag(name: .long, help: "Miles, min/mi, feet (default: the daemon's configured units).")
    var imperial = false

    @Flag(name: .long, help: "Kilometres, min/km, metres (default: the daemon's configured units).")
    var metric = false

    func validate() throws {
        if imperial && metric { throw ValidationError("give --imperial or --metric, not both") }
        guard timeout >= 0, timeout.isFinite else { throw ValidationError("--timeout must be 0 or more seconds") }
    }

    var socketPath: String { SocketPath.resolve(socket) }

    /// Units asked for on the command line, if any.
    var forcedUnits: UnitSystem? { imperial ? .imperial : metric ? .metric : nil }

    /// Units for a reply that carries the daemon's own (`STATUS.units`).
    func units(daemon: UnitSystem) -> UnitSystem {
        forcedUnits ?? daemon
    }

    /// Units for replies without a `units` field: asks the daemon's config
    /// unless the command line decided.
    func units(client: ControlClient) -> UnitSystem {
        if let forced = forcedUnits { return forced }
        guard let line = try? client.request(Request(command: .config)),
              let reply = try? ReplyEncoder.decode(ConfigReply.self, from: line),
              case let .object(config) = reply.config, case let .string(u)? = config["units"] else { return .metric }
        return UnitSystem(rawValue: u) ?? .metric
    }

    func connect() throws -> ControlClient {
        let client: ControlClient
        do {
            client = try ControlClient(path: socketPath, timeout: timeout)
        } catch {
            throw fail("\(error)", ExitCodes.unavailable)
        }
        if let v = client.version, v.protoMajor != ProtocolVersion.major {
            OutputFile.standardError.write("moonrunner: warning: moonrunnerd speaks protocol \(v.protoMajor).\(v.protoMinor), "
                + "this moonrunner \(ProtocolVersion.major).\(ProtocolVersion.minor); use matching versions\n")
        }
        return client
    }

    /// Sends one request and returns its reply; an ERROR reply is printed
    /// (on stdout with --json, else its message on stderr) and ends the
    /// command with the exit code for its `code`.
    func call(_ command: Request.Command, on client: ControlClient? = nil) throws -> String {
        let client = try client ?? connect()
        let reply: String
        do {
            reply = try client.request(Request(command: command))
        } catch {
            throw fail("\(error)", ExitCodes.unavailable)
        }
        try check(reply)
        return reply
    }

    /// Ends the command when `reply` is an ERROR.
    func check(_ reply: String) throws {
        guard ReplyEncoder.replyClass(of: reply) == "ERROR" else { return }
        let error = try? ReplyEncoder.decode(ErrorReply.self, from: reply)
        if json { out(reply) }
        let code = error.map { ExitCodes.code(for: $0.code) } ?? ExitCodes.refused
        throw fail(error.map { "\($0.message) (\($0.code.rawValue))" } ?? reply, code, quiet: json)
    }

    /// Decodes a reply, or ends the command when it cannot be read.
    func decode<T: Decodable>(_ type: T.Type, _ reply: String) throws -> T {
        do {
            return try ReplyEncoder.decode(type, from: reply)
        } catch {
            throw fail("cannot read the daemon's reply (\(error)): \(reply.prefix(200))", ExitCodes.dataError)
        }
    }

    /// Prints a STATUS reply as JSON or text.
    func printStatus(_ reply: String) throws {
        if json { out(reply); return }
        let s = try decode(StatusReply.self, reply)
        out(Display.status(s, units: units(daemon: s.units)))
    }
}

/// Prints `message` on stderr (unless quiet) and returns the exit to throw.
func fail(_ message: String, _ code: Int32, quiet: Bool = false) -> ExitCode {
    if !quiet { OutputFile.standardError.write("moonrunner: \(message)\n") }
    return ExitCode(code)
}

/// Writes a line straight to standard output (unbuffered), so that a pipe
/// sees each update as it happens.
func out(_ line: String) {
    OutputFile.standardOutput.write(line + "\n")
}
