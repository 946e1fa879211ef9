import GRDB

/// Where one session stands with one target. The states a job goes through:
///
/// `queued` → `sending` (written *before* the request leaves, so that a crash,
/// a power cut or a lost answer leaves a job "in doubt", never one that looks
/// unsent) → `processing` (Strava took the file and is reading it; its upload
/// id is kept) → `done` (the remote id and link kept). Off that path: `failed`
/// (the service refused the file itself, or the attempts ran out: a person may
/// retry), `deleted` (the session went before it was sent: never sent), `empty`
/// (every point lies in a privacy zone: nothing to send), `held` (the
/// credential was refused: nothing is tried until it is connected again).
public enum JobState: String, Sendable, Codable, CaseIterable, DatabaseValueConvertible {
    case queued, sending, processing, done, failed, deleted, empty, held

    /// States the queue still works on.
    public var isOpen: Bool { self == .queued || self == .sending || self == .processing }
}

/// One row of the ledger: a session and a target, and everything needed to
/// finish the job after a restart without sending it twice.
public struct UploadJob: Sendable, Equatable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "job"

    public var target: TargetKind
    public var session: Int64
    public var state: JobState
    /// The session's start, UNIX seconds: file names and the look-up by start time.
    public var startTime: Double
    public var activity: String
    /// The service's id of the activity (or file name), once known.
    public var remoteID: String?
    /// Where a person sees it.
    public var remoteURL: String?
    /// A service's id of an upload still being processed (Strava's upload id).
    public var pending: String?
    public var attempts: Int
    public var lastError: String?
    /// When the next attempt is due, UNIX seconds.
    public var nextAt: Double
    public var queuedAt: Double
    public var updatedAt: Double
    /// True for "upload again": a new activity is wanted even though one was made.
    public var again: Bool

    public init(target: TargetKind, session: Int64, startTime: Double, activity: String, at now: Double) {
        self.target = target
        self.session = session
        state = .queued
        self.startTime = startTime
        self.activity = activity
        attempts = 0
        nextAt = now
        queuedAt = now
        updatedAt = now
        again = false
    }

    /// True when an attempt may already have reached the service: the next one looks there first.
    public var inDoubt: Bool { state == .sending }

    enum CodingKeys: String, CodingKey {
        case target, session, state, startTime = "start_time", activity, remoteID = "remote_id", remoteURL = "remote_url",
             pending, attempts, lastError = "last_error", nextAt = "next_at", queuedAt = "queued_at",
             updatedAt = "updated_at", again
    }
}

extension TargetKind: DatabaseValueConvertible {}

/// A target's credential as the ledger keeps it: the fields its service
/// needs (client id and secret, tokens and their expiry, an API key, a
/// password) as one JSON object, readable by this service's user only and
/// never sent back out of its socket.
public struct Credential: Sendable, Equatable, Codable {
    public var fields: [String: String]
    /// When it was connected, UNIX seconds (shown; the queue goes by `fromSession`).
    public var connectedAt: Double
    /// Sessions from this id on are sent: the newest finished one when the target was connected.
    public var fromSession: Int64?
    /// Why the service refused it, when it did (then the target is held until reconnected).
    public var refused: String?
    /// The service's name of the account, when it says (shown on the phone).
    public var account: String?

    public init(fields: [String: String], connectedAt: Double, refused: String? = nil, account: String? = nil) {
        self.fields = fields
        self.connectedAt = connectedAt
        self.refused = refused
        self.account = account
    }

    public subscript(_ key: String) -> String? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    /// True once the service granted access (an API key, a password or a refresh token is there).
    public var isConnected: Bool {
        ["refresh_token", "api_key", "password"].contains { !(fields[$0] ?? "").isEmpty }
    }
}
