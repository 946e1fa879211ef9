import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerStore

/// Commits go to an append-only journal; the database takes it in later.
@Suite("Store journal")
struct JournalTests {
    static func batch(_ id: Int64, from t0: Int, count: Int = 3, state: SessionState = .recording) -> CommitBatch {
        var b = CommitBatch(sessionID: id, snapshot: snapshot(state: state, last: Double(1000 + t0 + count)))
        b.points = (t0..<(t0 + count)).map { point(Double($0)) }
        b.stepSeconds = [StepSecondSample(second: Int64(1000 + t0), steps: 2, cadence: 120)]
        return b
    }

    /// Whole records in the journal, as another process reads them (the file keeps its preallocated size).
    static func journalRecords(_ dir: String) -> Int {
        let path = (dir as NSString).appendingPathComponent(SessionStore.journalName)
        return (try? JournalFile(path: path, lock: false).readAll().count) ?? 0
    }

    @Test("a commit is a journal record: read back at once, in the database only when consolidated")
    func heldThenConsolidated() async throws {
        let dir = try tempStoreDir()
        let store = try SessionStore(directory: dir)
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        try await store.commit(Self.batch(id, from: 0))
        try await store.commit(Self.batch(id, from: 3))
        #expect(Self.journalRecords(dir) == 2)
        #expect(try await store.points(session: id).count == 6)
        #expect(try await store.session(id: id)?.updatedAt == 1006)
        #expect(try await store.stepSeconds(session: id).count == 2)
        // Another store opened beside the writer sees the same, from the journal.
        let reader = try SessionStore(directory: dir)
        #expect(try await reader.points(session: id).count == 6)
        await #expect(throws: StoreError.self) { try await reader.commit(Self.batch(id, from: 6)) }

        await store.consolidate()
        #expect(Self.journalRecords(dir) == 0, "the journal is emptied once the database has it")
        #expect(try await store.points(session: id).count == 6)
        #expect(store.consolidationError == nil)
    }

    @Test("commits held for the database are merged per session: every row, the newest snapshot, step seconds added up")
    func heldCommitsMerge() async throws {
        let dir = try tempStoreDir()
        let store = try SessionStore(directory: dir)
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        var first = Self.batch(id, from: 0)
        first.events = [SessionEvent(kind: .lap, time: 1001, detectedAt: 1001, cause: "command", state: .recording)]
        try await store.commit(first)
        var second = Self.batch(id, from: 3)
        second.stepSeconds = [StepSecondSample(second: 1000, steps: 3, cadence: 130)]  // the same second as the first's
        try await store.commit(second)
        try await store.commit(Self.batch(id, from: 6))
        let times = { try await store.points(session: id).map(\.time) }
        #expect(try await times() == (0..<9).map(Double.init))
        #expect(try await store.session(id: id)?.updatedAt == 1009, "the newest snapshot")
        #expect(try await store.events(session: id).map(\.kind) == [.lap])
        #expect(try await store.stepSeconds(session: id).map(\.steps) == [5, 2], "2 + 3 in second 1000, then 1006's 2")

        await store.consolidate()
        #expect(Self.journalRecords(dir) == 0)
        #expect(try await times() == (0..<9).map(Double.init))
        #expect(try await store.session(id: id)?.updatedAt == 1009)
        #expect(try await store.stepSeconds(session: id).map(\.steps) == [5, 2])
        #expect(try await store.events(session: id).count == 1)
    }

    @Test("absorbing a later batch keeps both's rows in order and the later snapshot and end")
    func absorb() {
        var a = Self.batch(1, from: 0)
        var later = Self.batch(1, from: 3)
        later.endTime = 1006
        a.absorb(later)
        #expect(a.points.map(\.time) == [0, 1, 2, 3, 4, 5])
        #expect(a.stepSeconds.map(\.second) == [1000, 1003])
        #expect(a.snapshot.lastTime == 1006 && a.endTime == 1006)
        a.absorb(Self.batch(1, from: 6))
        #expect(a.endTime == 1006, "a batch without an end keeps the one before")
    }

    @Test("a session's end is consolidated at once")
    func endConsolidates() async throws {
        let dir = try tempStoreDir()
        let store = try SessionStore(directory: dir)
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        try await store.commit(Self.batch(id, from: 0))
        var last = Self.batch(id, from: 3, state: .stopped)
        last.endTime = 1006
        try await store.commit(last)
        #expect(Self.journalRecords(dir) == 0)
        #expect(try await store.session(id: id)?.state == .stopped)
    }

    @Test("a crash: the next open takes the journal in; a torn last record is dropped, nothing twice")
    func crashRecovery() async throws {
        let dir = try tempStoreDir()
        let journal = (dir as NSString).appendingPathComponent(SessionStore.journalName)
        let id = try await Self.recordAndDie(dir)
        // A power cut in the middle of the last append: its last bytes never reached the disk.
        #expect(try JournalFile(path: journal, lock: false).readAll().count == 4)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
        let end = Self.endOfRecord(4, in: [UInt8](bytes))
        bytes.replaceSubrange((end - 7)..<end, with: Data(count: 7))
        try bytes.write(to: URL(fileURLWithPath: journal))
        let saved = bytes

        let points = try await Self.openAndCount(dir, id)
        #expect(points == 9, "three whole records of four: \(points) points")
        #expect(Self.journalRecords(dir) == 0)
        // The same journal found again (its emptying was lost): records already taken in are skipped.
        try saved.write(to: URL(fileURLWithPath: journal))
        let third = try SessionStore(directory: dir)
        #expect(try await third.points(session: id).count == 9)
        #expect(try await third.stepSeconds(session: id).reduce(0) { $0 + $1.steps } == 6)
        // And numbering goes on after them.
        try await third.commit(Self.batch(id, from: 9))
        await third.consolidate()
        #expect(try await third.points(session: id).count == 12)
    }

    /// Where the `n`th record of a format 2 journal ends (its padding to the next block aside).
    static func endOfRecord(_ n: Int, in bytes: [UInt8]) -> Int {
        var at = JournalFormat.dataStart, end = at
        for _ in 0..<n {
            end = at + JournalFormat.recordHeaderSize + Int(JournalFormat.u32(bytes, at + 4))
            at = JournalFormat.aligned(end)
        }
        return end
    }

    /// Commits four batches and lets the store go without consolidating (a crash).
    @inline(never)
    static func recordAndDie(_ dir: String) async throws -> Int64 {
        let store = try SessionStore(directory: dir)
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        for k in 0..<4 { try await store.commit(batch(id, from: 3 * k)) }
        return id
    }

    /// Opens the store (taking the journal in) and counts a session's points; closes it again.
    @inline(never)
    static func openAndCount(_ dir: String, _ id: Int64) async throws -> Int {
        let store = try SessionStore(directory: dir)
        return try await store.points(session: id).count
    }

    @Test("a daemon waits for the journal and refuses a second writer")
    func oneWriter() throws {
        let dir = try tempStoreDir()
        let first = try SessionStore(directory: dir, writerWait: 1)
        #expect(throws: StoreError.self) { _ = try SessionStore(directory: dir, writerWait: 0.2) }
        _ = first
    }

    @Test("a batch of a deleted session is not written back")
    func deletedSession() async throws {
        let dir = try tempStoreDir()
        let store = try SessionStore(directory: dir)
        let keep = try await store.createSession(activity: .run, snapshot: snapshot())
        let gone = try await store.createSession(activity: .run, snapshot: snapshot())
        try await store.commit(Self.batch(keep, from: 0))
        var stop = Self.batch(gone, from: 0, state: .stopped)
        stop.endTime = 1003
        try await store.commit(stop)
        #expect(try await store.delete(id: gone))
        #expect(try await store.points(session: gone).isEmpty)
        #expect(try await store.points(session: keep).count == 3)
    }
}
