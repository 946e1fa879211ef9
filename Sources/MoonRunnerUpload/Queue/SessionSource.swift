import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerWeb

/// What an export came to.
public enum ExportResult: Sendable, Equatable {
    case file(Data)
    /// The session is not there (deleted): it is never sent.
    case deleted
    /// Every point lies inside the privacy zones: nothing is left to send.
    case empty
}

/// The queue's only view of the daemon: the finished sessions, the file of
/// one, and the moments one stops. The live one talks to the control socket
/// (`DaemonSource`); tests give a fake.
public protocol SessionSource: Sendable {
    /// The most recent sessions, newest first.
    func sessions(limit: Int) async throws -> [SessionInfo]
    func export(session: Int64, format: String, zones: [PrivacyZone]) async throws -> ExportResult
    /// Calls `stopped` after each session stops and once each (re)connection is watching (something
    /// may have stopped meanwhile); returns when cancelled.
    func watch(_ stopped: @escaping @Sendable () async -> Void) async
}

/// The control socket through the web app's async link: `?SESSIONS`,
/// `?EXPORT` (with `privacy` zones when they apply), and one `?WATCH`
/// reconnected with the web app's back-off (0.25 s doubling to 5 s).
public struct DaemonSource: SessionSource {
    let link: any DaemonLink
    let logger: Logger

    public init(link: any DaemonLink, logger: Logger = Logger(label: "moonrunner-upload")) {
        self.link = link
        self.logger = logger
    }

    public func sessions(limit: Int) async throws -> [SessionInfo] {
        try await link.decoded(SessionsReply.self, for: DaemonRequest(command: .sessions(limit: limit, before: nil))).sessions
    }

    public func export(session: Int64, format: String, zones: [PrivacyZone]) async throws -> ExportResult {
        let command: DaemonRequest.Command = zones.isEmpty ? .export(id: session, format: format)
            : .exportPrivate(id: session, format: format, zones: zones)
        let file = FileCollector()
        do {
            try await link.converse([DaemonRequest(command: command).line], silence: .seconds(30)) { line in
                switch ReplyEncoder.replyClass(of: line) {
                case "EVENT": return true
                case "EXPORT": return try await file.begin(DaemonReply.decode(ExportReply.self, line))
                case "EXPORT_DATA": return try await file.accept(DaemonReply.decode(ExportDataReply.self, line))
                default:
                    _ = try DaemonReply.decode(ExportReply.self, line)
                    throw DaemonLinkError.garbled(String(line.prefix(120)))
                }
            }
        } catch let e as RequestError where e.code == .notFound {
            // Gone, or wholly inside the zones: the plain export tells which.
            guard !zones.isEmpty else { return .deleted }
            return try await export(session: session, format: format, zones: []) == .deleted ? .deleted : .empty
        }
        return .file(await file.data)
    }

    /// Catches up once the daemon has answered the `?WATCH` (the watch is in place), then at
    /// each stop EVENT: a session that stops while the watch reconnects is then either in
    /// that list or its EVENT comes. Listed first, a stop between the two was missed.
    public func watch(_ stopped: @escaping @Sendable () async -> Void) async {
        var backoff = Backoff()
        while !Task.isCancelled {
            let answered = Answered()
            do {
                logger.debug("watching the daemon")
                try await link.converse([DaemonRequest(command: .watch(enable: true)).line], silence: .seconds(31)) { line in
                    let cls = ReplyEncoder.replyClass(of: line)
                    if cls == "STATUS", await answered.first() { await stopped() }
                    if cls == "EVENT", let e = try? ReplyEncoder.decode(EventReply.self, from: line), e.event == "stop" {
                        logger.debug("session \(e.session.map(String.init) ?? "?") stopped")
                        await stopped()
                    }
                    return !Task.isCancelled
                }
                logger.debug("the daemon's watch ended")
            } catch {
                logger.debug("the daemon's watch ended: \(error)")
            }
            if await answered.value { backoff.reset() }
            try? await Task.sleep(for: .seconds(backoff.wait()))
        }
    }
}

/// An export put back together, behind an actor for the receiver.
actor FileCollector {
    private var assembler: ExportAssembler?
    private(set) var data = Data()

    func begin(_ header: ExportReply) throws -> Bool {
        do {
            assembler = try ExportAssembler(header: header)
        } catch {
            throw DaemonLinkError.garbled(error.description)
        }
        return header.chunks > 0
    }

    func accept(_ chunk: ExportDataReply) throws -> Bool {
        guard var a = assembler else { throw DaemonLinkError.garbled("EXPORT_DATA before EXPORT") }
        do {
            data += try a.accept(chunk)
        } catch {
            throw DaemonLinkError.garbled(error.description)
        }
        assembler = a
        return !a.isComplete
    }
}

/// Whether the daemon answered on a connection (its next outage backs off afresh).
actor Answered {
    private(set) var value = false
    /// Marks the answer; true the first time only.
    func first() -> Bool {
        defer { value = true }
        return !value
    }
}
