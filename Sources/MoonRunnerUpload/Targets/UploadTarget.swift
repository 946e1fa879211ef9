import Foundation
import MoonRunnerProtocol

/// What an attempt came to.
public enum UploadOutcome: Sendable, Equatable {
    /// The service has the activity: its id and where a person sees it.
    case done(id: String, url: String?)
    /// The service took the file and is still reading it (Strava): ask again about `pending`.
    case processing(pending: String)
}

/// Why an attempt did not finish, and so what the queue does next.
public enum UploadFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer: no route, refused, reset, timed out. Retried with back-off.
    case network(String)
    /// The service failed (5xx) or answered what cannot be read. Retried with back-off.
    case server(String)
    /// Too many requests (429): not before `until` (UNIX seconds).
    case rateLimited(until: Double, String)
    /// The credential was refused (401, a revoked grant): the target is held until reconnected.
    case refused(String)
    /// The service refused the file itself (it will refuse it again): the job fails.
    case rejected(String)

    public var description: String {
        switch self {
        case let .network(s), let .server(s), let .refused(s), let .rejected(s): s
        case let .rateLimited(_, s): s
        }
    }
}

/// What a target is given for one attempt: the job, the file and a way to
/// make the other formats (WebDAV's GPX), the credential with a keeper that
/// writes a refreshed one at once, and the clock.
public struct UploadAttempt: Sendable {
    public var job: UploadJob
    public var file: Data
    public var title: String
    public var description: String
    public var keeper: CredentialKeeper
    public var now: @Sendable () -> Double
    /// The session in another format (GPX), with the same privacy zones; nil when it is gone.
    public var other: @Sendable (String) async throws -> Data?

    public init(job: UploadJob, file: Data, title: String, description: String, keeper: CredentialKeeper,
                now: @escaping @Sendable () -> Double, other: @escaping @Sendable (String) async throws -> Data? = { _ in nil }) {
        self.job = job
        self.file = file
        self.title = title
        self.description = description
        self.keeper = keeper
        self.now = now
        self.other = other
    }
}

/// One service that takes finished sessions. Each says how a retry after a
/// half-finished attempt never makes a second activity (`find`), how it
/// sends, and (Strava) how it learns that a file it took became an activity.
public protocol UploadTarget: Sendable {
    var kind: TargetKind { get }
    /// Called before sending a job that is in doubt (an earlier attempt may
    /// have reached the service): what that attempt made, or nil when the
    /// service has nothing of it.
    func find(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome?
    func send(_ attempt: UploadAttempt) async throws(UploadFailure) -> UploadOutcome
    /// Asks again about a file the service is still processing.
    func poll(_ attempt: UploadAttempt, pending: String) async throws(UploadFailure) -> UploadOutcome
}

extension UploadTarget {
    public func poll(_ attempt: UploadAttempt, pending: String) async throws(UploadFailure) -> UploadOutcome {
        .done(id: pending, url: nil)
    }
}

/// Holds a target's credential during an attempt and writes each new one to
/// the ledger before it is used: Strava may rotate the refresh token with
/// every refresh, and a token lost to a crash would cost a reconnect.
public actor CredentialKeeper {
    public private(set) var credential: Credential
    private let write: @Sendable (Credential) throws -> Void

    public init(_ credential: Credential, write: @escaping @Sendable (Credential) throws -> Void) {
        self.credential = credential
        self.write = write
    }

    public func replace(_ new: Credential) throws(UploadFailure) {
        do {
            try write(new)
        } catch {
            throw UploadFailure.server("cannot keep the new token: \(error)")
        }
        credential = new
    }
}

/// Reading the services' JSON with the protocol's own value type.
extension JSONValue {
    subscript(_ key: String) -> JSONValue? {
        if case let .object(o) = self { return o[key] }
        return nil
    }

    var text: String? {
        switch self {
        case let .string(s): s
        case let .number(n): n.rounded() == n && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        default: nil
        }
    }

    var double: Double? {
        switch self {
        case let .number(n): n
        case let .string(s): Double(s)
        default: nil
        }
    }

    var list: [JSONValue] {
        if case let .array(a) = self { return a }
        return []
    }
}
