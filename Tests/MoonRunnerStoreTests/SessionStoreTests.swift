import Foundation
import GRDB
import MoonRunnerCore
import Testing
@testable import MoonRunnerStore

func tempStoreDir() throws -> String {
    let dir = NSTemporaryDirectory() + "mr-store-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

func snapshot(state: SessionState = .recording, start: Double = 1000, last: Double = 1010, distance: Double = 0) -> SessionSnapshot {
    var stats = SessionStats()
    stats.startTime = start
    stats.distance = distance
    stats.elapsed = last - start
    return SessionSnapshot(state: state, stats: stats, pauses: [], lastTime: last)
}

func point(_ t: Double) -> TrackPoint {
    TrackPoint(time: t, fixTime: t, latitude: 51.5 + t * 1e-5, longitude: -0.1, altitude: .nan, speed: 3,
               course: 10, eph: 5, newSegment: t == 0)
}

@Suite("Session store")
struct SessionStoreTests {
    @Test("a rollback journal (kept, its header zeroed) with synchronous=FULL; a WAL database left by an older version is converted")
    func durability() async throws {
        let dir = try tempStoreDir()
        let path = (dir as NSString).appendingPathComponent(SessionStore.fileName)
        let old = try DatabaseQueue(path: path)
        try await old.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try old.close()
        let store = try SessionStore(directory: dir)
        #expect(try await store.pragma("journal_mode") == "persist")
        #expect(try await store.pragma("synchronous") == "2")  // FULL
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("a committed batch reads back whole")
    func commitAndRead() async throws {
        let store = try SessionStore(directory: try tempStoreDir())
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        var batch = CommitBatch(sessionID: id, snapshot: snapshot(last: 1020, distance: 42))
        batch.points = (0..<5).map { point(Double($0)) }
        batch.events = [SessionEvent(kind: .start, time: 1000, detectedAt: 1000, cause: "command", state: .recording)]
        batch.rejected = [RejectedFix(time: 1001, fix: GPSFix(time: 1001, mode: 3, latitude: 0, longitude: 0), reason: .nullIsland)]
        batch.stepSeconds = [StepSecondSample(second: 1000, steps: 2, cadence: 120)]
        try await store.commit(batch)
        var second = CommitBatch(sessionID: id, snapshot: snapshot(last: 1021, distance: 43))
        second.stepSeconds = [StepSecondSample(second: 1000, steps: 1, cadence: 121)]
        try await store.commit(second)

        let points = try await store.points(session: id)
        #expect(points.map(\.time) == [0, 1, 2, 3, 4])
        #expect(points[0].altitude.isNaN && points[0].newSegment)
        #expect(try await store.events(session: id).map(\.kind) == [.start])
        #expect(try await store.stepSeconds(session: id) == [StepSecondSample(second: 1000, steps: 3, cadence: 121)])
        let s = try #require(try await store.session(id: id))
        #expect(s.snapshot.stats.distance == 43)
        #expect(s.state == .recording)
        #expect(try await store.openSessions().map(\.id) == [id])
    }

    @Test("an interrupted session is closed with its data; delete removes everything")
    func closeAndDelete() async throws {
        let store = try SessionStore(directory: try tempStoreDir())
        let id = try await store.createSession(activity: .walk, snapshot: snapshot())
        var batch = CommitBatch(sessionID: id, snapshot: snapshot())
        batch.points = [point(1), point(2)]
        try await store.commit(batch)
        try await store.closeInterrupted(id: id)
        let s = try #require(try await store.session(id: id))
        #expect(s.state == .stopped && s.interrupted && s.endTime == 1010)
        #expect(try await store.points(session: id).count == 2)
        #expect(try await store.openSessions().isEmpty)
        #expect(try await store.delete(id: id))
        #expect(try await store.points(session: id).isEmpty)
        #expect(try await store.delete(id: id) == false)
    }

    @Test("retention deletes finished sessions that ended before the cutoff, never open ones")
    func retention() async throws {
        let store = try SessionStore(directory: try tempStoreDir())
        let old = try await store.createSession(activity: .run, snapshot: snapshot(start: 100, last: 200))
        var b = CommitBatch(sessionID: old, snapshot: snapshot(state: .stopped, start: 100, last: 200))
        b.endTime = 200
        b.points = [point(150)]
        try await store.commit(b)
        let openOld = try await store.createSession(activity: .run, snapshot: snapshot(start: 100, last: 200))
        let recent = try await store.createSession(activity: .run, snapshot: snapshot(start: 5000, last: 6000))
        var r = CommitBatch(sessionID: recent, snapshot: snapshot(state: .stopped, start: 5000, last: 6000))
        r.endTime = 6000
        try await store.commit(r)
        #expect(try await store.deleteSessions(endedBefore: 1000) == 1)
        #expect(try await store.session(id: old) == nil)
        #expect(try await store.points(session: old).isEmpty)
        #expect(try await store.session(id: openOld) != nil)
        #expect(try await store.session(id: recent) != nil)
    }

    @Test("sessions page newest first")
    func paging() async throws {
        let store = try SessionStore(directory: try tempStoreDir())
        var ids: [Int64] = []
        for i in 0..<5 { ids.append(try await store.createSession(activity: .run, snapshot: snapshot(start: Double(i)))) }
        #expect(try await store.sessions(limit: 2).map(\.id) == [ids[4], ids[3]])
        #expect(try await store.sessions(limit: 10, before: ids[2]).map(\.id) == [ids[1], ids[0]])
    }

    @Test("a damaged database is kept aside, reported, and a new one started")
    func damaged() async throws {
        let dir = try tempStoreDir()
        let path = (dir as NSString).appendingPathComponent(SessionStore.fileName)
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: path))
        let store = try SessionStore(directory: dir)
        guard case let .damaged(_, keptAs, _)? = store.recoveredFromDamage else {
            Issue.record("damage not reported")
            return
        }
        #expect(FileManager.default.fileExists(atPath: keptAs))
        #expect(try Data(contentsOf: URL(fileURLWithPath: keptAs)) == Data(repeating: 0x42, count: 8192))
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        #expect(try await store.session(id: id) != nil)
    }

    @Test("the store survives a reopen: what was committed is there")
    func reopen() async throws {
        let dir = try tempStoreDir()
        var id: Int64 = 0
        do {
            let store = try SessionStore(directory: dir)
            id = try await store.createSession(activity: .run, snapshot: snapshot())
            var b = CommitBatch(sessionID: id, snapshot: snapshot())
            b.points = (0..<100).map { point(Double($0)) }
            try await store.commit(b)
        }
        let again = try SessionStore(directory: dir)
        #expect(again.recoveredFromDamage == nil)
        #expect(try await again.points(session: id).count == 100)
    }
}
