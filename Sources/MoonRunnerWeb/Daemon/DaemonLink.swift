import Foundation
import MoonRunnerProtocol

/// A request of the control socket (named apart from Hummingbird's `Request`).
public typealias DaemonRequest = MoonRunnerProtocol.Request

/// Why the daemon could not be asked. Every page turns these into "the
/// daemon is not running" (503) with the reason, never a 500.
public enum DaemonLinkError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Nothing listens at the socket, or this user may not reach it.
    case unavailable(String)
    /// The daemon speaks a protocol major version this web app does not know.
    case incompatible(String)
    /// No line for longer than the silence allowed: the daemon is stuck or gone.
    case silent
    /// The daemon closed the connection before the conversation was over.
    case closed
    /// A line that is not what the protocol promises.
    case garbled(String)

    public var description: String {
        switch self {
        case let .unavailable(why): why
        case let .incompatible(why): why
        case .silent: "the daemon stopped answering"
        case .closed: "the daemon closed the connection"
        case let .garbled(why): "the daemon's reply cannot be read: \(why)"
        }
    }
}

/// The web app's only way to the daemon: a conversation on a connection of
/// its own (request lines out, reply lines in), so a daemon restart costs
/// one failed request and no stale state. The live link is
/// `SocketDaemonLink`; tests give a `FakeDaemonLink` that answers with the
/// daemon's own `ReplyEncoder` lines.
public protocol DaemonLink: Sendable {
    /// Opens a connection, checks the daemon's greeting, sends `lines` (while
    /// reading, so that a long upload never fills both directions at once)
    /// and hands each line the daemon sends to `receive` until it returns
    /// false. Throws `DaemonLinkError` (or what `receive` throws); `.silent`
    /// after `silence` without a line.
    func converse(_ lines: [String], silence: Duration,
                  receive: (String) async throws -> Bool) async throws
}

extension DaemonLink {
    /// One request and its reply (EVENTs skipped; an ERROR is returned as a line, not thrown).
    public func request(_ request: DaemonRequest, timeout: Duration = .seconds(10)) async throws -> String {
        try await requests([request.line], timeout: timeout).last ?? ""
    }

    /// Requests sent on one connection, one reply each, in order; stops at the
    /// first ERROR, which is the last line returned.
    public func requests(_ lines: [String], timeout: Duration = .seconds(10)) async throws -> [String] {
        let replies = Collected()
        let wanted = lines.count
        try await converse(lines, silence: timeout) { line in
            let cls = ReplyEncoder.replyClass(of: line)
            if cls == "EVENT" { return true }
            let count = await replies.append(line)
            return count < wanted && cls != "ERROR"
        }
        return await replies.lines
    }

    /// A reply of type `T`, or the daemon's ERROR as a `RequestError`.
    public func decoded<T: Decodable>(_ type: T.Type, for request: DaemonRequest) async throws -> T {
        let line = try await self.request(request)
        return try DaemonReply.decode(type, line)
    }

    /// Streams an export's decoded bytes to `write` as its pieces arrive: the
    /// same pieces, in the same order, that `moonrunner export` writes to its
    /// file, so a download is byte for byte the CLI's file.
    public func export(id: Int64, format: String, write: (Data) async throws -> Void) async throws {
        let state = ExportState()
        try await converse([DaemonRequest(command: .export(id: id, format: format)).line], silence: .seconds(30)) { line in
            switch ReplyEncoder.replyClass(of: line) {
            case "EVENT": return true
            case "EXPORT":
                let header = try DaemonReply.decode(ExportReply.self, line)
                try await state.begin(header)
                return header.chunks > 0
            case "EXPORT_DATA":
                let chunk = try DaemonReply.decode(ExportDataReply.self, line)
                let (data, done) = try await state.accept(chunk)
                try await write(data)
                return !done
            default:
                _ = try DaemonReply.decode(ExportReply.self, line)
                throw DaemonLinkError.garbled(String(line.prefix(120)))
            }
        }
    }
}

public enum DaemonReply {
    /// Decodes a reply line, turning an ERROR into the `RequestError` it carries.
    public static func decode<T: Decodable>(_ type: T.Type, _ line: String) throws -> T {
        if ReplyEncoder.replyClass(of: line) == "ERROR" {
            guard let e = try? ReplyEncoder.decode(ErrorReply.self, from: line) else {
                throw DaemonLinkError.garbled(String(line.prefix(120)))
            }
            throw RequestError(e.code, e.message)
        }
        do {
            return try ReplyEncoder.decode(type, from: line)
        } catch {
            throw DaemonLinkError.garbled(String(line.prefix(120)))
        }
    }
}

/// Lines gathered by a conversation's receiver.
actor Collected {
    var lines: [String] = []
    func append(_ line: String) -> Int {
        lines.append(line)
        return lines.count
    }
}

/// The assembler of one export, behind an actor for the receiver closure.
actor ExportState {
    private var assembler: ExportAssembler?

    func begin(_ header: ExportReply) throws {
        do {
            assembler = try ExportAssembler(header: header)
        } catch {
            throw DaemonLinkError.garbled(error.description)
        }
    }

    func accept(_ chunk: ExportDataReply) throws -> (Data, Bool) {
        guard var a = assembler else { throw DaemonLinkError.garbled("EXPORT_DATA before EXPORT") }
        do {
            let data = try a.accept(chunk)
            assembler = a
            return (data, a.isComplete)
        } catch {
            throw DaemonLinkError.garbled(error.description)
        }
    }
}
