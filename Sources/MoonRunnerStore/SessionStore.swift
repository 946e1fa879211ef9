import CMalloc
import Dispatch
import Foundation
import GRDB
import MoonRunnerCore
import MoonRunnerSystem
import Synchronization

/// The on-disk journal of sessions, gentle on an SD card.
///
/// A commit is one record appended to a journal file and made durable at
/// once (`JournalFile`: direct I/O, one 512-byte block written). The SQLite
/// database (a rollback journal, `synchronous=FULL`, GRDB) takes the journal in at a
/// session's end, on shutdown and every `consolidationInterval` seconds, in
/// one transaction that records the last record taken; the journal is then
/// emptied, and reads see both until then. A journal left by a crash or power
/// cut is taken in on open (by record number; a torn last record discarded),
/// so at most the commit interval is lost. One process writes (the daemon,
/// holding the journal's lock); a store opened beside it reads.
public final class SessionStore: Sendable {
    public static let fileName = "moonrunner.sqlite"
    public static let journalName = "moonrunner.journal"
    public let path: String
    /// The database's one connection, shared with `CourseStore` and `WorkoutStore`.
    let database: DatabaseQueue
    /// Set when the database found at start was damaged and had to be kept aside.
    public let recoveredFromDamage: StoreError?
    /// The journal, while this store is its writer.
    private let journal: JournalFile?
    /// Seconds commits may stay in the journal before the database takes them in.
    public let consolidationInterval: Double
    /// Commits in the journal that the database has not taken in yet.
    private let held: Mutex<HeldCommits>
    private let records: SessionRecords
    /// Journal appends block on the disk: on their own queue, never a task's thread.
    private let io = DispatchQueue(label: "moonrunner.store.journal")

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
        (database, recoveredFromDamage) = try StoreDatabase.openKeepingDamageAside(path)
        records = SessionRecords(database: database)

        let journalPath = (directory as NSString).appendingPathComponent(Self.journalName)
        var file = try StoreDatabase.openJournal(journalPath)
        let deadline = MonotonicClock.now() + writerWait
        while !file.isWriter && MonotonicClock.now() < deadline {
            usleep(50_000)
            file = try StoreDatabase.openJournal(journalPath)
        }
        if writerWait > 0 && !file.isWriter { throw StoreError.readOnly(path: journalPath) }
        let applied = try database.read { db in try UInt64.fetchOne(db, sql: "SELECT applied_seq FROM journal_state") ?? 0 }
        let entries = JournalEntry.decodeAll(file.readAll()).filter { $0.seq > applied }
        var state = HeldCommits()
        state.nextSeq = max(applied, entries.last?.seq ?? 0) + 1
        if file.isWriter {
            // What a crash left in the journal goes into the database now.
            if !entries.isEmpty {
                let batches = entries.map(\.batch)
                let upTo = entries.last?.seq ?? applied
                try database.write { db in try BatchTables.apply(batches, upTo: upTo, in: db) }
            }
            try file.reset()
            journal = file
        } else {
            state.batches = entries.map(\.batch)
            journal = nil
        }
        held = Mutex(state)
    }

    // MARK: Writing

    /// Opens a session row and returns its id.
    public func createSession(activity: Activity, snapshot: SessionSnapshot) async throws -> Int64 {
        let json = try SnapshotJSON.encode(snapshot)
        return try await database.write { db in
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
        let due = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Bool, any Error>) in
            append(batch) { c.resume(with: $0) }
        }
        if due { await consolidateAndTrim() }
    }

    /// Starts making `batch` durable and returns at once; `done` runs on the
    /// journal's queue once the record is on disk, with whether the database
    /// is now due to take the journal in (`consolidateAndTrim`), or the error.
    /// A caller that can take the outcome later pays no wake for it.
    public func append(_ batch: CommitBatch, done: @escaping @Sendable (Result<Bool, any Error>) -> Void) {
        guard let journal else { return done(.failure(StoreError.readOnly(path: path))) }
        let seq = held.withLock { $0.nextSeq }
        let raw: Data
        do {
            raw = try JournalEntry(seq: seq, batch: batch).json()
        } catch {
            return done(.failure(error))
        }
        io.async { [self] in
            do {
                // Deflated against the record before it, which only the journal's queue knows.
                let payload = try JournalCodec.deflate(raw, dictionary: journal.chain)
                try journal.append(payload, seq: seq, raw: raw)
            } catch {
                return done(.failure(error))
            }
            let due = self.held.withLock { h -> Bool in
                h.hold(batch)
                h.nextSeq = seq + 1
                return MonotonicClock.now() - h.since >= self.consolidationInterval
            }
            done(.success(due || batch.endTime != nil || batch.snapshot.state == .stopped))
        }
    }

    /// The database takes the journal in, and the batches held until now are
    /// freed: their pages go back to the system (glibc returns only the top of
    /// its main heap by itself), so what the daemon holds stays what it holds
    /// between two consolidations (footprint.py).
    public func consolidateAndTrim() async {
        await consolidate()
        _ = malloc_trim(0)
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
            try await database.write { db in try BatchTables.apply(batches, upTo: upTo, in: db) }
            held.withLock { h in
                h.batches.removeFirst(min(batches.count, h.batches.count))
                h.inFlight = 0
                h.since = MonotonicClock.now()
                h.consolidationError = nil
            }
            // Already in the database: a journal that fails to empty is taken in again, skipped by
            // number. A commit appended meanwhile keeps it from being emptied until the next time.
            try await onJournalQueue { try journal.reset(through: upTo) }
        } catch {
            held.withLock { h in
                h.inFlight = 0
                h.consolidationError = "\(error)"
            }
        }
    }

    /// How commits reach the disk (direct I/O, or buffered where the file system refuses it), for the log.
    public var journalWriteMode: String? { journal?.writeMode }

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

    /// Closes a session that cannot be resumed, keeping what was committed.
    public func closeInterrupted(id: Int64) async throws {
        await consolidate()  // the database alone is changed: it first takes in what the journal holds
        try await database.write { db in
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
        return try await database.write { db in
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Deletes finished sessions that ended before `cutoff` (retention);
    /// returns how many went. Open sessions are never touched.
    public func deleteSessions(endedBefore cutoff: Double) async throws -> Int {
        await consolidate()  // the database alone is changed: it first takes in what the journal holds
        return try await database.write { db in
            try db.execute(sql: """
                DELETE FROM session WHERE state = 'stopped' AND COALESCE(end_time, updated_at) < ?
                """, arguments: [cutoff])
            return db.changesCount
        }
    }

    // MARK: Reading (the database and what the journal holds beyond it)

    /// Sessions left open (recording or paused) by a crash or power cut.
    public func openSessions() async throws -> [StoredSession] {
        let journaled = held.withLock { $0.sessionIDs }
        return overlaid(try await records.openSessions(including: journaled)).filter { $0.state.isActive }
    }

    /// Newest first; `before` pages backwards by id.
    public func sessions(limit: Int, before: Int64? = nil) async throws -> [StoredSession] {
        overlaid(try await records.sessions(limit: limit, before: before))
    }

    public func session(id: Int64) async throws -> StoredSession? {
        try await records.session(id: id).map { overlaid([$0])[0] }
    }

    public func points(session id: Int64) async throws -> [TrackPoint] {
        try await records.points(session: id) + heldBatches(id).flatMap(\.points)
    }

    /// Every heart-rate reading of a session, in time order (NaN: missing).
    public func heartRate(session id: Int64) async throws -> [HeartRatePoint] {
        try await records.heartRate(session: id) + heldBatches(id).flatMap(\.heartRate)
    }

    /// Every R–R interval of a session, in the order the strap sent them.
    public func rrIntervals(session id: Int64) async throws -> [RRInterval] {
        try await records.rrIntervals(session: id) + heldBatches(id).flatMap(\.rrIntervals)
    }

    public func events(session id: Int64) async throws -> [SessionEvent] {
        try await records.events(session: id) + heldBatches(id).flatMap(\.events)
    }

    /// The fixes the filter refused or placed no point for, with why
    /// (diagnostics: a fix is a point, one of these, or both).
    public func rejectedFixes(session id: Int64) async throws -> [RejectedFix] {
        try await records.rejectedFixes(session: id) + heldBatches(id).flatMap(\.rejected)
    }

    public func pointCount(session id: Int64) async throws -> Int {
        try await records.pointCount(session: id) + heldBatches(id).reduce(0) { $0 + $1.points.count }
    }

    public func stepSeconds(session id: Int64) async throws -> [StepSecondSample] {
        let stored = try await records.stepSeconds(session: id)
        return held.withLock { $0.stepSeconds(of: id, after: stored) }
    }

    /// The batches of session `id` that the database has not taken in yet.
    private func heldBatches(_ id: Int64) -> [CommitBatch] {
        held.withLock { $0.batches(of: id) }
    }

    /// Session rows as the latest journaled batch of each leaves them.
    private func overlaid(_ rows: [StoredSession]) -> [StoredSession] {
        held.withLock { $0.overlaid(rows) }
    }

    /// A PRAGMA's value, as the writer connection sees it (diagnostics and tests).
    func pragma(_ name: String) async throws -> String? {
        try await database.write { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }
}
