import Foundation
import GRDB
import MoonRunnerCore
import Testing
@testable import MoonRunnerStore

/// Heart rate in the store: readings (a gap as NULL), R–R intervals and the
/// point column, and the stores written before them (migration v4).
@Suite("Store: heart rate")
struct HeartRateStoreTests {
    static func withHeartRate(_ id: Int64) -> CommitBatch {
        var b = CommitBatch(sessionID: id, snapshot: snapshot(last: 1004))
        b.points = (0..<4).map { k in
            var p = point(1000 + Double(k))
            p.heartRate = k == 2 ? .nan : 140 + Double(k)
            return p
        }
        b.heartRate = [HeartRatePoint(time: 1000, bpm: 140), HeartRatePoint(time: 1001, bpm: 141),
                       HeartRatePoint(time: 1002, bpm: .nan), HeartRatePoint(time: 1003, bpm: 143)]
        b.rrIntervals = [RRInterval(time: 1000, milliseconds: 427.734375), RRInterval(time: 1001, milliseconds: 425.78125)]
        return b
    }

    @Test("readings, a missing one as NULL, R–R intervals and each point's heart rate come back as committed, from the journal and from the database")
    func roundTrip() async throws {
        let dir = try tempStoreDir()
        let store = try SessionStore(directory: dir)
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        try await store.commit(Self.withHeartRate(id))
        for stage in ["journal", "database"] {
            if stage == "database" { await store.consolidate() }
            let hr = try await store.heartRate(session: id)
            #expect(hr.map(\.time) == [1000, 1001, 1002, 1003], "\(stage)")
            #expect(hr[2].bpm.isNaN && hr[3].bpm == 143, "\(stage): the gap stays a gap")
            #expect(try await store.rrIntervals(session: id).map(\.milliseconds) == [427.734375, 425.78125], "\(stage)")
            let points = try await store.points(session: id)
            #expect(points.map(\.heartRate).filter(\.isFinite) == [140, 141, 143] && points[2].heartRate.isNaN, "\(stage)")
        }
        let db = try DatabaseQueue(path: (dir as NSString).appendingPathComponent(SessionStore.fileName))
        let nulls = try await db.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM hr_sample WHERE bpm IS NULL") }
        #expect(nulls == 1, "a missing reading is NULL in the database, never 0")
    }

    @Test("a database and a journal written before heart rate (schema v3, ten numbers a point) open, migrate and read: no heart rate, nothing lost")
    func beforeHeartRate() async throws {
        let dir = try tempStoreDir()
        let dbPath = (dir as NSString).appendingPathComponent(SessionStore.fileName)
        let journalPath = (dir as NSString).appendingPathComponent(SessionStore.journalName)
        // A session written and consolidated, one more batch left in the journal.
        let id = try await Self.recordAndClose(dir)
        // Back to what the version before heart rate left on disk: its schema…
        let db = try DatabaseQueue(path: dbPath)
        try await db.write { db in
            try db.execute(sql: """
                DROP TABLE hr_sample; DROP TABLE rr_interval;
                ALTER TABLE point DROP COLUMN hr;
                DELETE FROM grdb_migrations WHERE identifier = 'v4-heart-rate';
                """)
        }
        try db.close()
        // …and its journal records: points of ten numbers, no hr or rr keys.
        let old = JournalEntry(seq: 2, batch: JournalTests.batch(id, from: 3))
        var raw = try #require(JSONSerialization.jsonObject(with: JournalEntry.inflate(old.encoded())) as? [String: Any])
        #expect(raw["hr"] == nil && raw["rr"] == nil, "a batch without heart rate writes no hr/rr keys")
        raw["points"] = (raw["points"] as? [[Any]] ?? []).map { Array($0.prefix(10)) }
        let record = try JournalEntry.deflate(JSONSerialization.data(withJSONObject: raw))
        try Self.append(record, to: journalPath)

        let store = try SessionStore(directory: dir)
        let points = try await store.points(session: id)
        #expect(points.count == 6, "three from the database and three from the old journal record")
        #expect(points.allSatisfy { $0.heartRate.isNaN })
        #expect(points.map(\.time) == [0, 1, 2, 3, 4, 5])
        #expect(try await store.heartRate(session: id).isEmpty)
        #expect(try await store.rrIntervals(session: id).isEmpty)
        // The migrated database takes heart rate from now on.
        try await store.commit(Self.withHeartRate(id))
        await store.consolidate()
        #expect(try await store.heartRate(session: id).count == 4)
    }

    /// A session of three points, consolidated; the store closed again.
    @inline(never)
    static func recordAndClose(_ dir: String) async throws -> Int64 {
        let store = try SessionStore(directory: dir)
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        try await store.commit(JournalTests.batch(id, from: 0))
        await store.consolidate()
        return id
    }

    /// The journal as that version left it: format 1, the record alone.
    static func append(_ record: Data, to path: String) throws {
        try Data(JournalFormat.v1Record(record)).write(to: URL(fileURLWithPath: path))
    }
}
