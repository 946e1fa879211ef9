import Foundation
import GRDB
import MoonRunnerCore

/// Errors the store reports; each says what to do about it.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case cannotOpen(path: String, reason: String)
    case damaged(path: String, keptAs: String, reason: String)
    case badSnapshot(session: Int64)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "cannot open the store \(path): \(reason)"
        case let .damaged(path, keptAs, reason):
            "the store \(path) was damaged (\(reason)); it was kept as \(keptAs) and a new one was started"
        case let .badSnapshot(id): "session \(id) has an unreadable snapshot"
        }
    }
}

/// The on-disk journal of sessions: SQLite in WAL mode through GRDB, with
/// `synchronous=FULL` so that a committed batch survives a power cut.
public final class SessionStore: Sendable {
    public static let fileName = "moonrunner.sqlite"
    public let path: String
    private let pool: DatabasePool
    /// Set when the database found at start was damaged and had to be kept aside.
    public let recoveredFromDamage: StoreError?

    /// Opens (creating if needed) the store in `directory`. A database that
    /// fails `PRAGMA quick_check` is renamed aside, never deleted, and a new
    /// one is started; `recoveredFromDamage` says so.
    public init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        self.path = path
        var damage: StoreError?
        do {
            pool = try Self.open(path)
        } catch {
            let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                do {
                    try FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
                } catch {
                    throw StoreError.cannotOpen(path: path, reason: "damaged and cannot be moved aside: \(error)")
                }
            }
            damage = .damaged(path: path, keptAs: aside, reason: "\(error)")
            do {
                pool = try Self.open(path)
            } catch {
                throw StoreError.cannotOpen(path: path, reason: "\(error)")
            }
        }
        recoveredFromDamage = damage
    }

    private static func open(_ path: String) throws -> DatabasePool {
        var config = Configuration()
        config.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: config)
        // GRDB sets synchronous=NORMAL with WAL; a committed batch must survive
        // a power cut, so the (single) writer connection gets FULL.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let check = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        guard check == ["ok"] else {
            throw StoreError.cannotOpen(path: path, reason: "quick_check: \(check.prefix(3).joined(separator: "; "))")
        }
        try Schema.migrator.migrate(pool)
        return pool
    }

    // MARK: Writing

    /// Opens a session row and returns its id.
    public func createSession(activity: Activity, snapshot: SessionSnapshot) async throws -> Int64 {
        let json = try Self.encode(snapshot)
        return try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO session (activity, state, start_time, updated_at, snapshot)
                VALUES (?, ?, ?, ?, ?)
                """, arguments: [activity.rawValue, snapshot.state.rawValue, snapshot.stats.startTime,
                                 snapshot.lastTime, json])
            return db.lastInsertedRowID
        }
    }

    /// Writes a batch in one transaction: all of it or nothing.
    public func commit(_ batch: CommitBatch) async throws {
        let json = try Self.encode(batch.snapshot)
        try await pool.write { db in
            let sid = batch.sessionID
            if !batch.points.isEmpty {
                let st = try db.cachedStatement(sql: """
                    INSERT INTO point (session_id, time, fix_time, lat, lon, alt, speed, course, eph, new_segment,
                                       distance)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for p in batch.points {
                    try st.execute(arguments: [sid, p.time, Self.opt(p.fixTime), p.latitude, p.longitude,
                                               Self.opt(p.altitude), Self.opt(p.speed), Self.opt(p.course),
                                               Self.opt(p.eph), p.newSegment, Self.opt(p.distance)])
                }
            }
            if !batch.rejected.isEmpty {
                let st = try db.cachedStatement(sql: """
                    INSERT INTO rejected_fix (session_id, time, fix_time, lat, lon, eph, reason)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
                for r in batch.rejected {
                    try st.execute(arguments: [sid, r.time, Self.opt(r.fix.time), Self.opt(r.fix.latitude),
                                               Self.opt(r.fix.longitude), Self.opt(r.fix.eph), r.reason.rawValue])
                }
            }
            if !batch.events.isEmpty {
                let st = try db.cachedStatement(sql: """
                    INSERT INTO event (session_id, kind, time, detected_at, cause, state, detail)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
                for e in batch.events {
                    try st.execute(arguments: [sid, e.kind.rawValue, e.time, e.detectedAt, e.cause,
                                               e.state.rawValue, e.detail])
                }
            }
            if !batch.stepSeconds.isEmpty {
                let st = try db.cachedStatement(sql: """
                    INSERT INTO step_second (session_id, second, steps, cadence) VALUES (?, ?, ?, ?)
                    ON CONFLICT(session_id, second) DO UPDATE SET steps = steps + excluded.steps,
                    cadence = excluded.cadence
                    """)
                for s in batch.stepSeconds {
                    try st.execute(arguments: [sid, s.second, s.steps, s.cadence])
                }
            }
            let stats = batch.snapshot.stats
            try db.execute(sql: """
                UPDATE session SET state = ?, updated_at = ?, distance_m = ?, elapsed_s = ?, moving_s = ?,
                steps = ?, snapshot = ?, end_time = COALESCE(?, end_time) WHERE id = ?
                """, arguments: [batch.snapshot.state.rawValue, batch.snapshot.lastTime, stats.distance,
                                 stats.elapsed, stats.moving, stats.steps, json, batch.endTime, sid])
        }
    }

    /// Closes a session that cannot be resumed, keeping what was committed.
    public func closeInterrupted(id: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                UPDATE session SET state = 'stopped', interrupted = 1, end_time = COALESCE(end_time, updated_at)
                WHERE id = ?
                """, arguments: [id])
            try db.execute(sql: """
                INSERT INTO event (session_id, kind, time, detected_at, cause, state, detail)
                SELECT id, 'stop', updated_at, updated_at, 'interrupted', 'stopped', NULL FROM session WHERE id = ?
                """, arguments: [id])
        }
    }

    /// Deletes a session and everything recorded in it. Returns false when absent.
    public func delete(id: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Deletes finished sessions that ended before `cutoff` (retention);
    /// returns how many went. Open sessions are never touched.
    public func deleteSessions(endedBefore cutoff: Double) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: """
                DELETE FROM session WHERE state = 'stopped' AND COALESCE(end_time, updated_at) < ?
                """, arguments: [cutoff])
            return db.changesCount
        }
    }

    // MARK: Reading

    /// Sessions left open (recording or paused) by a crash or power cut.
    public func openSessions() async throws -> [StoredSession] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM session WHERE state IN ('recording', 'autoPaused', 'paused') ORDER BY id
                """).compactMap(Self.session(from:))
        }
    }

    /// Newest first; `before` pages backwards by id.
    public func sessions(limit: Int, before: Int64? = nil) async throws -> [StoredSession] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM session WHERE id < ? ORDER BY id DESC LIMIT ?
                """, arguments: [before ?? Int64.max, limit]).compactMap(Self.session(from:))
        }
    }

    public func session(id: Int64) async throws -> StoredSession? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM session WHERE id = ?", arguments: [id]).flatMap(Self.session(from:))
        }
    }

    public func points(session id: Int64) async throws -> [TrackPoint] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM point WHERE session_id = ? ORDER BY time, id", arguments: [id]).map { r in
                TrackPoint(time: r["time"], fixTime: r["fix_time"] ?? .nan, latitude: r["lat"], longitude: r["lon"],
                           altitude: r["alt"] ?? .nan, speed: r["speed"] ?? .nan, course: r["course"] ?? .nan,
                           eph: r["eph"] ?? .nan, newSegment: r["new_segment"], distance: r["distance"] ?? .nan)
            }
        }
    }

    public func events(session id: Int64) async throws -> [SessionEvent] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM event WHERE session_id = ? ORDER BY time, id", arguments: [id]).compactMap { r in
                guard let kind = SessionEventKind(rawValue: r["kind"]),
                      let state = SessionState(rawValue: r["state"]) else { return nil }
                return SessionEvent(kind: kind, time: r["time"], detectedAt: r["detected_at"], cause: r["cause"],
                                    state: state, detail: r["detail"])
            }
        }
    }

    /// The fixes the filter refused, with why (diagnostics: a fix is either a
    /// point or one of these).
    public func rejectedFixes(session id: Int64) async throws -> [RejectedFix] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM rejected_fix WHERE session_id = ? ORDER BY id", arguments: [id]).compactMap { r in
                guard let reason = FixRejection(rawValue: r["reason"]) else { return nil }
                let fix = GPSFix(time: r["fix_time"] ?? .nan, mode: 0, latitude: r["lat"] ?? .nan,
                                 longitude: r["lon"] ?? .nan, eph: r["eph"] ?? .nan)
                return RejectedFix(time: r["time"], fix: fix, reason: reason)
            }
        }
    }

    public func pointCount(session id: Int64) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM point WHERE session_id = ?", arguments: [id]) ?? 0
        }
    }

    public func stepSeconds(session id: Int64) async throws -> [StepSecondSample] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM step_second WHERE session_id = ? ORDER BY second", arguments: [id]).map {
                StepSecondSample(second: $0["second"], steps: $0["steps"], cadence: $0["cadence"])
            }
        }
    }

    /// A PRAGMA's value, as the writer connection sees it (diagnostics and tests).
    func pragma(_ name: String) async throws -> String? {
        try await pool.write { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    // MARK: Helpers

    private static func session(from r: Row) -> StoredSession? {
        guard let activity = Activity(rawValue: r["activity"]),
              let state = SessionState(rawValue: r["state"]),
              let json: String = r["snapshot"],
              let snapshot = try? decoder.decode(SessionSnapshot.self, from: Data(json.utf8)) else { return nil }
        return StoredSession(id: r["id"], activity: activity, state: state, startTime: r["start_time"],
                             endTime: r["end_time"], updatedAt: r["updated_at"], interrupted: r["interrupted"],
                             snapshot: snapshot)
    }

    private static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }()

    private static func encode(_ snapshot: SessionSnapshot) throws -> String {
        let e = JSONEncoder()
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try e.encode(snapshot), as: UTF8.self)
    }

    /// NaN is stored as NULL.
    private static func opt(_ v: Double) -> Double? { v.isFinite ? v : nil }
}
