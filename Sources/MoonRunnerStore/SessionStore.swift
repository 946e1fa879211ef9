import CMalloc
import Dispatch
import Foundation
import GRDB
import MoonRunnerCore
import Synchronization

/// Errors the store reports; each says what to do about it.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case cannotOpen(path: String, reason: String)
    case damaged(path: String, keptAs: String, reason: String)
    case badSnapshot(session: Int64)
    case readOnly(path: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "cannot open the store \(path): \(reason)"
        case let .damaged(path, keptAs, reason):
            "the store \(path) was damaged (\(reason)); it was kept as \(keptAs) and a new one was started"
        case let .badSnapshot(id): "session \(id) has an unreadable snapshot"
        case let .readOnly(path): "the store \(path) is being written by another process (moonrunnerd holds its journal)"
        }
    }
}

/// The on-disk journal of sessions, gentle on an SD card.
///
/// A commit is one record appended to an append-only journal file and
/// `fdatasync`ed (`JournalFile`): durable at once, about one page written.
/// The SQLite database (WAL, `synchronous=FULL`, through GRDB) takes the
/// journal in at a session's end, on shutdown, and every
/// `consolidationInterval` seconds in between, in one transaction that also
/// records the last record taken; the journal is then emptied. Until then
/// reads see the database and the journal together. On open, a journal left
/// by a crash or power cut is taken in (records already in the database are
/// skipped by number; a torn last record is discarded), so nothing committed
/// is lost and at most the commit interval is.
///
/// One process writes (the daemon, holding the journal's lock); a store
/// opened beside it reads the database and the journal's whole records.
public final class SessionStore: Sendable {
    public static let fileName = "moonrunner.sqlite"
    public static let journalName = "moonrunner.journal"
    public let path: String
    /// Shared with `CourseStore` (one database, one writer).
    let pool: DatabasePool
    /// Set when the database found at start was damaged and had to be kept aside.
    public let recoveredFromDamage: StoreError?
    /// The journal, while this store is its writer.
    private let journal: JournalFile?
    /// Seconds commits may stay in the journal before the database takes them in.
    public let consolidationInterval: Double
    private let held: Mutex<Held>
    /// Journal appends block on the disk: on their own queue, never a task's thread.
    private let io = DispatchQueue(label: "moonrunner.store.journal")

    /// Commits in the journal that the database has not taken in yet.
    private struct Held: Sendable {
        var batches: [CommitBatch] = []
        /// How many of `batches` a consolidation is writing now (they must stay as they are).
        var inFlight = 0
        var nextSeq: UInt64 = 1
        var since = Monotonic.seconds()
        var consolidationError: String?

        /// A commit of the session the last held batch belongs to is merged into it
        /// (`CommitBatch.absorb`), unless a consolidation is writing that batch.
        mutating func hold(_ batch: CommitBatch) {
            if batches.count > inFlight, let last = batches.indices.last, batches[last].sessionID == batch.sessionID {
                batches[last].absorb(batch)
            } else {
                batches.append(batch)
            }
        }
    }

    /// Opens (creating if needed) the store in `directory`. A database that
    /// fails `PRAGMA quick_check` is renamed aside, never deleted, and a new
    /// one is started; `recoveredFromDamage` says so. The store writes when
    /// the journal is free; `writerWait` > 0 waits that long for it and fails
    /// otherwise (the daemon: a second one must not write beside the first).
    public init(directory: String, writerWait: Double = 0, consolidationInterval: Double = 1800) throws {
        self.consolidationInterval = consolidationInterval
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

        let journalPath = (directory as NSString).appendingPathComponent(Self.journalName)
        var file = try Self.openJournal(journalPath)
        let deadline = Monotonic.seconds() + writerWait
        while !file.isWriter && Monotonic.seconds() < deadline {
            usleep(50_000)
            file = try Self.openJournal(journalPath)
        }
        if writerWait > 0 && !file.isWriter { throw StoreError.readOnly(path: journalPath) }
        let applied = try pool.read { db in try UInt64.fetchOne(db, sql: "SELECT applied_seq FROM journal_state") ?? 0 }
        let entries = file.readAll().compactMap { try? JournalEntry.decode($0) }.filter { $0.seq > applied }
        var state = Held()
        state.nextSeq = max(applied, entries.last?.seq ?? 0) + 1
        if file.isWriter {
            // What a crash left in the journal goes into the database now.
            if !entries.isEmpty {
                let batches = entries.map(\.batch)
                let upTo = entries.last?.seq ?? applied
                try pool.write { db in try Self.apply(batches, upTo: upTo, in: db) }
            }
            try file.reset()
            journal = file
        } else {
            state.batches = entries.map(\.batch)
            journal = nil
        }
        held = Mutex(state)
    }

    private static func openJournal(_ path: String) throws -> JournalFile {
        do {
            return try JournalFile(path: path, lock: true)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: "\(error)")
        }
    }

    private static func open(_ path: String) throws -> DatabasePool {
        var config = Configuration()
        config.busyMode = .timeout(5)
        // Each connection's page cache fills up to SQLite's default 2 MB as the database
        // grows, and stays: growth of the daemon's memory over a long session that
        // nothing needs (consolidation appends, reads are a session at a time; issue 21,
        // footprint.py). 512 KiB each, and two readers instead of GRDB's five.
        config.maximumReaderCount = 2
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -512") }
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

    /// Makes a batch durable: one journal record, all of it or nothing. The
    /// database takes it in later (see the type's comment); a failure to do so
    /// loses nothing and is reported in `consolidationError`.
    public func commit(_ batch: CommitBatch) async throws {
        guard let journal else { throw StoreError.readOnly(path: path) }
        let seq = held.withLock { $0.nextSeq }
        let payload = try JournalEntry(seq: seq, batch: batch).encoded()
        try await onJournalQueue { try journal.append(payload) }
        let due = held.withLock { h -> Bool in
            h.hold(batch)
            h.nextSeq = seq + 1
            return Monotonic.seconds() - h.since >= consolidationInterval
        }
        if due || batch.endTime != nil || batch.snapshot.state == .stopped {
            await consolidate()
            // The batches held until now are freed: their pages go back to the system
            // (glibc returns only the top of its main heap by itself), so what the daemon
            // holds stays what it holds between two consolidations (issue 21, footprint.py).
            _ = malloc_trim(0)
        }
    }

    /// The database takes in what the journal holds, and the journal is emptied.
    public func consolidate() async {
        guard let journal else { return }
        let (batches, upTo) = held.withLock { h in
            h.inFlight = h.batches.count
            return (h.batches, h.nextSeq - 1)
        }
        guard !batches.isEmpty else { return }
        do {
            try await pool.write { db in try Self.apply(batches, upTo: upTo, in: db) }
            held.withLock { h in
                h.batches.removeFirst(min(batches.count, h.batches.count))
                h.inFlight = 0
                h.since = Monotonic.seconds()
                h.consolidationError = nil
            }
            // Already in the database: a journal that fails to empty is taken in again, skipped by number.
            try await onJournalQueue { try journal.reset() }
        } catch {
            held.withLock { h in
                h.inFlight = 0
                h.consolidationError = "\(error)"
            }
        }
    }

    /// Why the database could not take the journal in (it keeps every commit meanwhile); nil when it could.
    public var consolidationError: String? { held.withLock { $0.consolidationError } }

    private func onJournalQueue(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            io.async {
                do {
                    try body()
                    c.resume()
                } catch {
                    c.resume(throwing: error)
                }
            }
        }
    }

    /// Writes batches in one transaction, with the number of the last journal record they came from.
    private static func apply(_ batches: [CommitBatch], upTo seq: UInt64, in db: Database) throws {
        for batch in batches {
            // A session deleted meanwhile keeps nothing.
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM session WHERE id = ?", arguments: [batch.sessionID]) == true
            else { continue }
            let json = try encode(batch.snapshot)
            let sid = batch.sessionID
            if !batch.points.isEmpty {
                let st = try db.cachedStatement(sql: """
                    INSERT INTO point (session_id, time, fix_time, lat, lon, alt, speed, course, eph, new_segment,
                                       distance, hr)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for p in batch.points {
                    try st.execute(arguments: [sid, p.time, opt(p.fixTime), p.latitude, p.longitude,
                                               opt(p.altitude), opt(p.speed), opt(p.course),
                                               opt(p.eph), p.newSegment, opt(p.distance), opt(p.heartRate)])
                }
            }
            if !batch.heartRate.isEmpty {
                let st = try db.cachedStatement(sql: "INSERT INTO hr_sample (session_id, time, bpm) VALUES (?, ?, ?)")
                for r in batch.heartRate { try st.execute(arguments: [sid, r.time, opt(r.bpm)]) }
            }
            if !batch.rrIntervals.isEmpty {
                let st = try db.cachedStatement(sql: "INSERT INTO rr_interval (session_id, time, rr_ms) VALUES (?, ?, ?)")
                for r in batch.rrIntervals { try st.execute(arguments: [sid, r.time, r.milliseconds]) }
            }
            if !batch.rejected.isEmpty {
                let st = try db.cachedStatement(sql: """
                    INSERT INTO rejected_fix (session_id, time, fix_time, lat, lon, eph, reason)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
                for r in batch.rejected {
                    try st.execute(arguments: [sid, r.time, opt(r.fix.time), opt(r.fix.latitude),
                                               opt(r.fix.longitude), opt(r.fix.eph), r.reason.rawValue])
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
        try db.execute(sql: "UPDATE journal_state SET applied_seq = MAX(applied_seq, ?)", arguments: [seq])
    }

    /// Closes a session that cannot be resumed, keeping what was committed.
    public func closeInterrupted(id: Int64) async throws {
        await consolidate()  // the database alone is changed: it first takes in what the journal holds
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
        await consolidate()  // the database alone is changed: it first takes in what the journal holds
        return try await pool.write { db in
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Deletes finished sessions that ended before `cutoff` (retention);
    /// returns how many went. Open sessions are never touched.
    public func deleteSessions(endedBefore cutoff: Double) async throws -> Int {
        await consolidate()  // the database alone is changed: it first takes in what the journal holds
        return try await pool.write { db in
            try db.execute(sql: """
                DELETE FROM session WHERE state = 'stopped' AND COALESCE(end_time, updated_at) < ?
                """, arguments: [cutoff])
            return db.changesCount
        }
    }

    // MARK: Reading (the database and what the journal holds beyond it)

    /// Sessions left open (recording or paused) by a crash or power cut.
    public func openSessions() async throws -> [StoredSession] {
        let journaled = held.withLock { Array(Set($0.batches.map(\.sessionID))) }
        let rows = try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM session WHERE state IN ('recording', 'autoPaused', 'paused') OR id IN (\(
                    journaled.map(String.init).joined(separator: ",")
                )) ORDER BY id
                """).compactMap(Self.session(from:))
        }
        return overlaid(rows).filter { $0.state.isActive }
    }

    /// Newest first; `before` pages backwards by id.
    public func sessions(limit: Int, before: Int64? = nil) async throws -> [StoredSession] {
        let rows = try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM session WHERE id < ? ORDER BY id DESC LIMIT ?
                """, arguments: [before ?? Int64.max, limit]).compactMap(Self.session(from:))
        }
        return overlaid(rows)
    }

    public func session(id: Int64) async throws -> StoredSession? {
        let row = try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM session WHERE id = ?", arguments: [id]).flatMap(Self.session(from:))
        }
        return row.map { overlaid([$0])[0] }
    }

    public func points(session id: Int64) async throws -> [TrackPoint] {
        // Columns by position, rows through a cursor: looking a column up by name
        // lower-cases it for every row and column (GRDB), which was most of the
        // 270 ms a 10-hour session's ?SESSION cost.
        let stored = try await pool.read { db in
            var points: [TrackPoint] = []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT time, fix_time, lat, lon, alt, speed, course, eph, new_segment, distance, hr
                FROM point WHERE session_id = ? ORDER BY time, id
                """, arguments: [id])
            while let r = try rows.next() {
                points.append(TrackPoint(time: r[0], fixTime: r[1] ?? .nan, latitude: r[2], longitude: r[3],
                                         altitude: r[4] ?? .nan, speed: r[5] ?? .nan, course: r[6] ?? .nan,
                                         eph: r[7] ?? .nan, newSegment: r[8], distance: r[9] ?? .nan,
                                         heartRate: r[10] ?? .nan))
            }
            return points
        }
        return stored + heldBatches(id).flatMap(\.points)
    }

    /// Every heart-rate reading of a session, in time order (NaN: missing).
    public func heartRate(session id: Int64) async throws -> [HeartRateReading] {
        let stored = try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT time, bpm FROM hr_sample WHERE session_id = ? ORDER BY time, rowid",
                             arguments: [id]).map { HeartRateReading(time: $0[0], bpm: $0[1] ?? .nan) }
        }
        return stored + heldBatches(id).flatMap(\.heartRate)
    }

    /// Every R–R interval of a session, in the order the strap sent them.
    public func rrIntervals(session id: Int64) async throws -> [RRInterval] {
        let stored = try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT time, rr_ms FROM rr_interval WHERE session_id = ? ORDER BY time, rowid",
                             arguments: [id]).map { RRInterval(time: $0[0], milliseconds: $0[1]) }
        }
        return stored + heldBatches(id).flatMap(\.rrIntervals)
    }

    public func events(session id: Int64) async throws -> [SessionEvent] {
        let stored = try await pool.read { db -> [SessionEvent] in
            try Row.fetchAll(db, sql: "SELECT * FROM event WHERE session_id = ? ORDER BY time, id", arguments: [id]).compactMap { r -> SessionEvent? in
                guard let kind = SessionEventKind(rawValue: r["kind"]),
                      let state = SessionState(rawValue: r["state"]) else { return nil }
                return SessionEvent(kind: kind, time: r["time"], detectedAt: r["detected_at"], cause: r["cause"],
                                    state: state, detail: r["detail"])
            }
        }
        return stored + heldBatches(id).flatMap(\.events)
    }

    /// The fixes the filter refused or placed no point for, with why
    /// (diagnostics: a fix is a point, one of these, or both).
    public func rejectedFixes(session id: Int64) async throws -> [RejectedFix] {
        let stored = try await pool.read { db -> [RejectedFix] in
            try Row.fetchAll(db, sql: "SELECT * FROM rejected_fix WHERE session_id = ? ORDER BY id", arguments: [id]).compactMap { r -> RejectedFix? in
                guard let reason = FixRejection(rawValue: r["reason"]) else { return nil }
                let fix = GPSFix(time: r["fix_time"] ?? .nan, mode: 0, latitude: r["lat"] ?? .nan,
                                 longitude: r["lon"] ?? .nan, eph: r["eph"] ?? .nan)
                return RejectedFix(time: r["time"], fix: fix, reason: reason)
            }
        }
        return stored + heldBatches(id).flatMap(\.rejected)
    }

    public func pointCount(session id: Int64) async throws -> Int {
        let stored = try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM point WHERE session_id = ?", arguments: [id]) ?? 0
        }
        return stored + heldBatches(id).reduce(0) { $0 + $1.points.count }
    }

    public func stepSeconds(session id: Int64) async throws -> [StepSecondSample] {
        var seconds = try await pool.read { db in
            var seconds: [StepSecondSample] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT second, steps, cadence FROM step_second WHERE session_id = ? ORDER BY second",
                                           arguments: [id])
            while let r = try rows.next() { seconds.append(StepSecondSample(second: r[0], steps: r[1], cadence: r[2])) }
            return seconds
        }
        // As the database adds them up: a second split over two commits is one row.
        for s in heldBatches(id).flatMap(\.stepSeconds) {
            if let last = seconds.last, last.second == s.second {
                seconds[seconds.count - 1].steps += s.steps
                seconds[seconds.count - 1].cadence = s.cadence
            } else {
                seconds.append(s)
            }
        }
        return seconds
    }

    /// The batches of session `id` that the database has not taken in yet.
    private func heldBatches(_ id: Int64) -> [CommitBatch] {
        held.withLock { $0.batches.filter { $0.sessionID == id } }
    }

    /// Session rows as the latest journaled batch of each leaves them.
    private func overlaid(_ rows: [StoredSession]) -> [StoredSession] {
        let latest = held.withLock { h -> [Int64: (snapshot: SessionSnapshot, end: Double?)] in
            var out: [Int64: (snapshot: SessionSnapshot, end: Double?)] = [:]
            for b in h.batches { out[b.sessionID] = (b.snapshot, b.endTime ?? out[b.sessionID]?.end) }
            return out
        }
        guard !latest.isEmpty else { return rows }
        return rows.map { row in
            guard let l = latest[row.id] else { return row }
            var r = row
            r.snapshot = l.snapshot
            r.state = l.snapshot.state
            r.updatedAt = l.snapshot.lastTime
            r.endTime = l.end ?? r.endTime
            return r
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

/// CLOCK_MONOTONIC in seconds: consolidation intervals do not follow wall-clock steps.
enum Monotonic {
    static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
