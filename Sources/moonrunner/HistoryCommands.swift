import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerClient
import MoonRunnerProtocol

// Recorded sessions: ?SESSIONS, ?SESSION, ?DELETE.

struct Sessions: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List recorded sessions, newest first (?SESSIONS).")
    @OptionGroup var options: ClientOptions
    @Option(help: "How many to list (1-1000).") var limit = 20
    @Option(help: "List sessions older than this id (paging).") var before: Int64?

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000") }
    }

    func run() throws {
        let client = try options.connect()
        let reply = try options.call(.sessions(limit: limit, before: before), on: client)
        if options.json { out(reply); return }
        let r = try options.decode(SessionsReply.self, reply)
        out(Display.sessions(r.sessions, units: options.units(client: client)))
    }
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one session in full (?SESSION).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Session id (see `moonrunner sessions`).", completion: SessionCompletion.kind) var id: Int64

    func run() throws {
        let client = try options.connect()
        let reply = try options.call(.session(id: id), on: client)
        if options.json { out(reply); return }
        let r = try options.decode(SessionReply.self, reply)
        out(Display.session(r, units: options.units(client: client)))
    }
}

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete a stopped session and its track for good (?DELETE).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Session id (see `moonrunner sessions`).", completion: SessionCompletion.kind) var id: Int64

    func run() throws {
        let reply = try options.call(.delete(id: id))
        if options.json { out(reply); return }
        let r = try options.decode(DeletedReply.self, reply)
        out("deleted session #\(r.session)")
    }
}

/// Completes session ids by asking the daemon (quietly nothing when it is not there).
enum SessionCompletion {
    static var kind: CompletionKind {
        .custom { words, _, prefix in ids(words: words, prefix: prefix) }
    }

    static func ids(words: [String], prefix: String) -> [String] {
        var given: String?
        for (i, w) in words.enumerated() {
            if w == "--socket", i + 1 < words.count { given = words[i + 1] }
            if w.hasPrefix("--socket=") { given = String(w.dropFirst("--socket=".count)) }
        }
        let path = SocketPath.resolve(given)
        guard let client = try? ControlClient(path: path, timeout: 1),
              let line = try? client.request(Request(command: .sessions(limit: 100, before: nil))),
              let reply = try? ReplyEncoder.decode(SessionsReply.self, from: line) else { return [] }
        return reply.sessions.map { String($0.id) }.filter { $0.hasPrefix(prefix) }
    }
}
