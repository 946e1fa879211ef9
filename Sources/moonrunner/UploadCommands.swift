import ArgumentParser
import FoundationEssentials
import MoonRunnerClient
import MoonRunnerProtocol
#if canImport(Glibc)
import Glibc
#endif

// The upload service: ?TARGETS, ?UPLOADS, ?RETRY, ?AGAIN, ?SETUP on moonrunner-upload's socket.

struct UploadAdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Uploads of finished sessions (moonrunner-upload): their state, retries, the targets.",
        discussion: "Talks to moonrunner-upload's socket (upload.admin_socket): status and targets for whoever may open "
            + "it (group moonrunner), the rest as root, its user or a member of upload.admin_group. --json prints the "
            + "service's replies as they are.",
        subcommands: [UploadStatus.self, UploadRetry.self, UploadAgain.self, UploadTargets.self, UploadSetup.self])
}

/// Options of the `upload` subcommands.
struct UploadOptions: ParsableArguments {
    static let defaultSocket = "/run/moonrunner-upload/upload.sock"

    @Option(name: .customLong("upload-socket"),
            help: ArgumentHelp("moonrunner-upload's socket (default: $MOONRUNNER_UPLOAD_SOCKET or \(defaultSocket)).",
                               valueName: "path"),
            completion: .file())
    var uploadSocket: String?

    @OptionGroup(visibility: .hidden) var shared: ClientOptions

    var json: Bool { shared.json }

    var path: String {
        uploadSocket ?? ProcessInfo.processInfo.environment["MOONRUNNER_UPLOAD_SOCKET"] ?? Self.defaultSocket
    }

    /// Sends one request; an ERROR ends the command with its exit code.
    func call(_ request: UploadRequest) throws -> String {
        let client: ControlClient
        do {
            client = try ControlClient(path: path, timeout: 30)
        } catch let error as ControlClient.Unavailable {
            throw fail("moonrunner-upload is not running or not reachable at \(path) (\(error.reason)); start it "
                + "(systemctl start moonrunner-upload), or pass --upload-socket", ExitCodes.unavailable)
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
            throw fail("cannot read the upload service's reply: \(reply.prefix(200))", ExitCodes.dataError)
        }
    }

    func printTargets(_ r: TargetsReply) {
        for t in r.targets {
            let state = switch t.state {
            case "connected": "connected" + (t.account.map { " (\($0))" } ?? "")
            case "reconnect": "reconnect \(t.title): \(t.message ?? "the service refused the credential")"
            case "disabled": "disabled (upload.\(t.target).enabled)"
            default: "not connected"
            }
            out(Display.pad(t.title, 14) + " " + state + (t.privacyZones ? "; privacy zones on" : ""))
        }
        if !r.networkAllows { out("the network does not allow uploads now (down, or not one of upload.networks)") }
    }
}

struct UploadStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Each target's connection and each session's uploads (?TARGETS, ?UPLOADS).")
    @OptionGroup var options: UploadOptions
    @Option(help: "Only this session's uploads.") var session: Int64?

    func run() throws {
        let targets = try options.call(.targets)
        let uploads = try options.call(.uploads(limit: 200))
        if options.json { out(targets); out(uploads); return }
        options.printTargets(try options.decode(TargetsReply.self, targets))
        let jobs = try options.decode(UploadsReply.self, uploads).jobs.filter { session == nil || $0.session == session }
        guard !jobs.isEmpty else { out("no uploads yet"); return }
        out("")
        out("SESSION  TARGET         STATE       TRIES  WHERE")
        for j in jobs {
            let title = TargetTitle.of(j.target)
            let detail = j.state == "done" ? j.url ?? j.remoteID ?? "" : j.lastError ?? ""
            out(Display.pad(String(j.session), 8) + " " + Display.pad(title, 14) + " " + Display.pad(j.state, 11) + " "
                + Display.pad(String(j.attempts), 6) + " " + detail)
        }
    }
}

struct UploadRetry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Try failed, held and waiting uploads now (?RETRY).")
    @OptionGroup var options: UploadOptions
    @Option(help: "Only this target (strava, intervals, fittrackee, webdav).") var target: String?
    @Option(help: "Only this session.") var session: Int64?

    func run() throws {
        let reply = try options.call(.retry(target: target, session: session))
        if options.json { out(reply); return }
        out("\(try options.decode(UploadAck.self, reply).jobs ?? 0) upload(s) to try now")
    }
}

struct UploadAgain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "again", abstract: "Upload a session to a target again, although it was sent (?AGAIN).")
    @OptionGroup var options: UploadOptions
    @Argument(help: "The target (strava, intervals, fittrackee, webdav).") var target: String
    @Argument(help: "The session's id.") var session: Int64

    func run() throws {
        let reply = try options.call(.again(target: target, session: session))
        if options.json { out(reply); return }
        out("session \(session) queued for \(TargetTitle.of(target)) again")
    }
}

struct UploadTargets: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "targets", abstract: "Each target's connection (?TARGETS).")
    @OptionGroup var options: UploadOptions

    func run() throws {
        let reply = try options.call(.targets)
        if options.json { out(reply); return }
        options.printTargets(try options.decode(TargetsReply.self, reply))
    }
}

struct UploadSetup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Store a target's fields, read as KEY=VALUE lines from standard input (?SETUP).",
        discussion: "Secrets never go on the command line (other users see it in ps). Strava and FitTrackee take "
            + "client_id and client_secret (then Connect on the phone), intervals.icu athlete_id and api_key, "
            + "WebDAV user and password. Example: printf 'athlete_id=i123\\napi_key=…\\n' | moonrunner upload setup intervals")
    @OptionGroup var options: UploadOptions
    @Argument(help: "The target (strava, intervals, fittrackee, webdav).") var target: String

    func run() throws {
        var fields: [String: String] = [:]
        while let line = readLine() {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            fields[parts[0].trimmingSpacesAndTabs()] = parts[1].trimmingSpacesAndTabs()
        }
        let reply = try options.call(.setup(target: target, fields: fields))
        if options.json { out(reply); return }
        options.printTargets(try options.decode(TargetsReply.self, reply))
    }
}

/// A target's name as people write it.
enum TargetTitle {
    static func of(_ target: String) -> String {
        ["strava": "Strava", "intervals": "intervals.icu", "fittrackee": "FitTrackee", "webdav": "WebDAV"][target] ?? target
    }
}
