import Foundation
import GRDB

/// The queue, the ledger and the credentials in one SQLite file in the
/// service's state directory (`upload.sqlite`, mode 0600): WAL with
/// `synchronous=FULL`, so a row written survives kill -9 and a power cut,
/// and a write that cannot be made (a full disk: SQLITE_FULL) throws and
/// changes nothing. The worker writes a job `sending` before its request
/// leaves; if that write fails, nothing is sent.
public final class Ledger: Sendable {
    let db: DatabaseQueue

    public init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let path = directory + "/upload.sqlite"
        var config = Configuration()
        config.busyMode = .timeout(5)
        // Made 0600 before SQLite opens it (its -wal and -shm files take the database's mode):
        // no umask, which is the whole process's and would reach other threads' files.
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
        db = try DatabaseQueue(path: path, configuration: config)
        try db.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        chmod(path, 0o600)
        try Self.migrator.migrate(db)
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("1") { db in
            try db.create(table: "job") { t in
                t.column("target", .text).notNull()
                t.column("session", .integer).notNull()
                t.column("state", .text).notNull()
                t.column("start_time", .double).notNull()
                t.column("activity", .text).notNull()
                t.column("remote_id", .text)
                t.column("remote_url", .text)
                t.column("pending", .text)
                t.column("attempts", .integer).notNull()
                t.column("last_error", .text)
                t.column("next_at", .double).notNull()
                t.column("queued_at", .double).notNull()
                t.column("updated_at", .double).notNull()
                t.column("again", .boolean).notNull()
                t.primaryKey(["target", "session"])
            }
            try db.create(table: "credential") { t in
                t.primaryKey("target", .text)
                t.column("json", .text).notNull()
            }
            try db.create(table: "grant") { t in
                t.primaryKey("state", .text)
                t.column("json", .text).notNull()
            }
        }
        return m
    }

    // MARK: Jobs

    /// Adds a job unless the ledger has one for that session and target (a session is queued once).
    @discardableResult
    public func enqueue(_ job: UploadJob) throws -> Bool {
        try db.write { db in
            guard try UploadJob.fetchOne(db, key: ["target": job.target.rawValue, "session": job.session]) == nil else {
                return false
            }
            try job.insert(db)
            return true
        }
    }

    public func save(_ job: UploadJob) throws {
        try db.write { db in try job.save(db) }
    }

    public func job(_ target: TargetKind, _ session: Int64) throws -> UploadJob? {
        try db.read { db in try UploadJob.fetchOne(db, key: ["target": target.rawValue, "session": session]) }
    }

    /// Every job, newest session first.
    public func jobs(limit: Int = 200) throws -> [UploadJob] {
        try db.read { db in
            try UploadJob.fetchAll(db, sql: "SELECT * FROM job ORDER BY session DESC, target LIMIT ?", arguments: [limit])
        }
    }

    /// The open jobs (queued, sending, processing), the one due first first.
    public func openJobs() throws -> [UploadJob] {
        try db.read { db in
            try UploadJob.fetchAll(db, sql: "SELECT * FROM job WHERE state IN ('queued','sending','processing') ORDER BY next_at, session")
        }
    }

    /// Sessions the ledger knows of (for the start-up catch-up).
    public func knownSessions() throws -> Set<Int64> {
        try db.read { db in Set(try Int64.fetchAll(db, sql: "SELECT DISTINCT session FROM job")) }
    }

    // MARK: Credentials

    public func credential(_ target: TargetKind) throws -> Credential? {
        try db.read { db in
            guard let json = try String.fetchOne(db, sql: "SELECT json FROM credential WHERE target = ?", arguments: [target.rawValue])
            else { return nil }
            return try JSONDecoder().decode(Credential.self, from: Data(json.utf8))
        }
    }

    public func setCredential(_ target: TargetKind, _ credential: Credential?) throws {
        try db.write { db in
            guard let credential else {
                try db.execute(sql: "DELETE FROM credential WHERE target = ?", arguments: [target.rawValue])
                return
            }
            let json = String(decoding: try JSONEncoder().encode(credential), as: UTF8.self)
            try db.execute(sql: "INSERT OR REPLACE INTO credential (target, json) VALUES (?, ?)", arguments: [target.rawValue, json])
        }
    }

    // MARK: Authorisation grants in progress (OAuth state → PKCE verifier, redirect)

    public func saveGrant(state: String, _ grant: [String: String]) throws {
        let json = String(decoding: try JSONEncoder().encode(grant), as: UTF8.self)
        try db.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO \"grant\" (state, json) VALUES (?, ?)", arguments: [state, json])
        }
    }

    /// The grant of `state`, removed: a state works once.
    public func takeGrant(state: String) throws -> [String: String]? {
        try db.write { db in
            guard let json = try String.fetchOne(db, sql: "SELECT json FROM \"grant\" WHERE state = ?", arguments: [state]) else {
                return nil
            }
            try db.execute(sql: "DELETE FROM \"grant\" WHERE state = ?", arguments: [state])
            return try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        }
    }
}
