import MoonRunnerCore
import Testing
@testable import MoonRunnerStore

/// How batches of one session combine: held for the database (`absorb`) and
/// put back after a commit that failed (`putBack`).
@Suite("Commit batch")
struct CommitBatchTests {
    static func batch(points times: [Double], last: Double, end: Double? = nil) -> CommitBatch {
        var b = CommitBatch(sessionID: 7, snapshot: snapshot(last: last, distance: last - 1000))
        b.points = times.map(point)
        b.events = times.map { SessionEvent(kind: .lap, time: $0, detectedAt: $0, cause: "command", state: .recording) }
        b.stepSeconds = times.map { StepSecondSample(second: Int64($0), steps: 1, cadence: 120) }
        b.heartRate = times.map { HeartRatePoint(time: $0, bpm: 140) }
        b.rrIntervals = times.map { RRInterval(time: $0, milliseconds: 430) }
        b.rejected = times.map { RejectedFix(time: $0, fix: GPSFix(time: $0, mode: 3, latitude: 0, longitude: 0), reason: .nullIsland) }
        b.endTime = end
        return b
    }

    @Test("a batch that failed to commit goes back in front of what came since: every row once, in order, the newer snapshot")
    func putBack() {
        let failed = Self.batch(points: [1, 2, 3], last: 1003)
        var since = Self.batch(points: [4, 5], last: 1005)
        since.putBack(failed)
        #expect(since.sessionID == 7)
        #expect(since.points.map(\.time) == [1, 2, 3, 4, 5])
        #expect(since.events.map(\.time) == [1, 2, 3, 4, 5])
        #expect(since.stepSeconds.map(\.second) == [1, 2, 3, 4, 5])
        #expect(since.heartRate.map(\.time) == [1, 2, 3, 4, 5])
        #expect(since.rrIntervals.map(\.time) == [1, 2, 3, 4, 5])
        #expect(since.rejected.map(\.time) == [1, 2, 3, 4, 5])
        #expect(since.rowCount == failed.rowCount + Self.batch(points: [4, 5], last: 1005).rowCount)
        #expect(since.snapshot.lastTime == 1005, "what came since is the newer state of the session")
    }

    @Test("the failed batch's end survives what came since unless that one ended the session itself")
    func putBackKeepsTheEnd() {
        var since = Self.batch(points: [], last: 1005)
        since.putBack(Self.batch(points: [1], last: 1003, end: 1003))
        #expect(since.endTime == 1003)
        var ended = Self.batch(points: [], last: 1005, end: 1005)
        ended.putBack(Self.batch(points: [1], last: 1003, end: 1003))
        #expect(ended.endTime == 1005)
    }

    @Test("a batch put back and committed writes every row once")
    func putBackThenCommit() async throws {
        let store = try SessionStore(directory: try tempStoreDir())
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        var failed = Self.batch(points: [1, 2], last: 1002)
        failed.sessionID = id
        var since = Self.batch(points: [3], last: 1003)
        since.sessionID = id
        since.putBack(failed)
        try await store.commit(since)
        await store.consolidate()
        #expect(try await store.points(session: id).map(\.time) == [1, 2, 3])
        #expect(try await store.events(session: id).count == 3)
        #expect(try await store.session(id: id)?.updatedAt == 1003)
    }

    @Test("a later batch held for the database is taken in after this one: its rows after these, its snapshot instead")
    func absorb() {
        var held = Self.batch(points: [1, 2], last: 1002)
        held.absorb(Self.batch(points: [3], last: 1003, end: 1003))
        #expect(held.points.map(\.time) == [1, 2, 3])
        #expect(held.snapshot.lastTime == 1003)
        #expect(held.endTime == 1003)
    }
}
