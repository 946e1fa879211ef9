import ArgumentParser
import FoundationEssentials
import MoonRunnerClient
import MoonRunnerProtocol
#if canImport(Glibc)
import Glibc
#endif

// The web app's phones: ?PAIR, ?DEVICES, ?REVOKE on moonrunner-web's admin socket.

struct WebAdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Phones of the web app (moonrunner-web): pair one, list them, revoke one.",
        discussion: "Talks to moonrunner-web's admin socket (web.admin_socket), as root, its user or a member of "
            + "web.admin_group. --json prints the web app's replies as they are.",
        subcommands: [WebPair.self, WebDevices.self, WebRevoke.self])
}

/// Options of the `web` subcommands.
struct WebOptions: ParsableArguments {
    static let defaultSocket = "/run/moonrunner-web/admin.sock"

    @Option(name: .customLong("admin-socket"),
            help: ArgumentHelp("moonrunner-web's admin socket (default: $MOONRUNNER_WEB_ADMIN or \(defaultSocket)).",
                               valueName: "path"),
            completion: .file())
    var adminSocket: String?

    /// `--json` belongs to the options every subcommand shares (`ClientOptions`), which the parser fills first.
    @OptionGroup(visibility: .hidden) var shared: ClientOptions

    var json: Bool { shared.json }

    var path: String {
        adminSocket ?? ProcessInfo.processInfo.environment["MOONRUNNER_WEB_ADMIN"] ?? Self.defaultSocket
    }

    /// Sends one request to the web app; an ERROR ends the command with its exit code.
    func call(_ request: WebAdminRequest) throws -> String {
        let client: ControlClient
        do {
            client = try ControlClient(path: path, timeout: 10)
        } catch let error as ControlClient.Unavailable {
            throw fail("moonrunner-web is not running or not reachable at \(path) (\(error.reason)); start it "
                + "(systemctl start moonrunner-web), or pass --admin-socket", ExitCodes.unavailable)
        }
        let reply: String
        do {
            try client.send(line: request.line)
            reply = try client.nextReply()
        } catch {
            throw fail("\(error)", ExitCodes.unavailable)
        }
        if ReplyEncoder.replyClass(of: reply) == "ERROR" {
            if json { out(reply) }
            let error = try? ReplyEncoder.decode(ErrorReply.self, from: reply)
            throw fail(error.map { "\($0.message) (\($0.code.rawValue))" } ?? reply,
                       error.map { ExitCodes.code(for: $0.code) } ?? ExitCodes.refused, quiet: json)
        }
        return reply
    }

    func decode<T: Decodable>(_ type: T.Type, _ reply: String) throws -> T {
        do {
            return try ReplyEncoder.decode(type, from: reply)
        } catch {
            throw fail("cannot read the web app's reply: \(reply.prefix(200))", ExitCodes.dataError)
        }
    }
}

struct WebPair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Print a one-time pairing link and its QR code (qrencode) for a phone (?PAIR).",
        discussion: "The code works once, for 10 minutes. Open the link on the phone (scan the QR code), or open the "
            + "web app and type the code.")
    @OptionGroup var options: WebOptions
    @Flag(name: .customLong("no-qr"), help: "Do not draw the QR code.") var noQR = false

    func run() throws {
        let reply = try options.call(.pair)
        if options.json { out(reply); return }
        let r = try options.decode(PairingReply.self, reply)
        let minutes = Int((r.expiresInS / 60).rounded())
        out("Open this on the phone (it works once, for \(minutes) minutes):")
        for url in r.urls { out("  \(url)") }
        out("or open the web app and type the code  \(r.code)")
        guard !noQR, let first = r.urls.first else { return }
        if !QRCode.draw(first) {
            out("(install qrencode to see a QR code here: apt install qrencode)")
        }
    }
}

struct WebDevices: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the paired phones (?DEVICES).")
    @OptionGroup var options: WebOptions

    func run() throws {
        let reply = try options.call(.devices)
        if options.json { out(reply); return }
        let r = try options.decode(DevicesReply.self, reply)
        guard !r.devices.isEmpty else {
            out("no paired phones; pair one with `moonrunner web pair`")
            return
        }
        out("ID  NAME                  PAIRED            LAST SEEN         FROM")
        for d in r.devices {
            out(Display.pad(d.id, 3) + " " + Display.pad(String(d.name.prefix(20)), 20) + "  " + Display.date(d.pairedAt)
                + "  " + (d.lastSeen.map(Display.date) ?? "-               ") + "  " + (d.lastAddress ?? "-"))
        }
    }
}

struct WebRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "End a phone's pairing now, its live view included (?REVOKE).")
    @OptionGroup var options: WebOptions
    @Argument(help: "The device's id (see `moonrunner web devices`).") var id: String

    func run() throws {
        let reply = try options.call(.revoke(id: id))
        if options.json { out(reply); return }
        let r = try options.decode(RevokedReply.self, reply)
        out("revoked device \(r.device.id) (\(r.device.name))")
    }
}

/// The QR code of a link, drawn in the terminal by Debian's `qrencode`.
enum QRCode {
    /// False when qrencode could not be run.
    static func draw(_ text: String) -> Bool {
        let argv = ["qrencode", "-t", "UTF8", "-m", "2", text]
        var pid = pid_t()
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        guard posix_spawnp(&pid, "qrencode", nil, nil, cArgs, environ) == 0 else { return false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status == 0
    }
}
