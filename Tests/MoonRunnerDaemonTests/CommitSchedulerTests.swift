import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerStore
import Testing
@testable import MoonRunnerDaemon

/// When the rows of a session are written, and what a failed write leaves behind.
@Suite("Commit scheduler")
struct CommitSchedulerTests {
    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    /// A scheduler gathering session 5, every 2 s, with `rows` points pending.
    static func gathering(rows: Int = 0) -> CommitScheduler {
        var commits = CommitScheduler(interval: 2)
        commits.pending = CommitBatch(sessionID: 5, snapshot: SessionEngine().snapshot)
        for k in 0..<rows { commits.pending?.points.append(SessionRecordingTests.point(Double(k), metres: Double(k))) }
        return commits
    }

    @Test("a commit takes the gathered rows and what `close` adds; a fresh batch gathers what follows, none after the last")
    func takesTheBatch() throws {
        var commits = Self.gathering(rows: 3)
        let taken = commits.begin(force: false, at: 10, ended: false) { $0.endTime = 99 }
        let batch = try #require(taken)
        #expect(batch.points.count == 3 && batch.endTime == 99)
        #expect(commits.pending?.rowCount == 0 && commits.session == 5)
        _ = commits.written()
        let last = commits.begin(force: true, at: 11, ended: true) { _ in }
        #expect(last != nil && commits.pending == nil)
        #expect(commits.session == 5, "a stopped session stays the session while its last batch is written")
        _ = commits.written()
        #expect(commits.session == nil, "a session whose last batch is written is no longer being recorded")
        let outside = commits.begin(force: true, at: 12, ended: false) { _ in } == nil
        #expect(outside, "nothing is gathered outside a session")
    }

    @Test("one commit at a time: a forced one asked for meanwhile runs right after it; one not forced waits its turn")
    func oneAtATime() {
        var commits = Self.gathering()
        let firstBegan = commits.begin(force: false, at: 10, ended: false) { _ in } != nil
        #expect(firstBegan)
        let secondRefused = commits.begin(force: false, at: 10.5, ended: false) { _ in } == nil
        #expect(secondRefused)
        #expect(commits.isBusy)
        _ = commits.written()
        let queuedUnforced = commits.takeQueued()
        #expect(!queuedUnforced, "a commit not forced is not queued")
        #expect(!commits.isBusy)
        let thirdBegan = commits.begin(force: false, at: 11, ended: false) { _ in } != nil
        #expect(thirdBegan)
        let forcedRefused = commits.begin(force: true, at: 11.5, ended: false) { _ in } == nil
        #expect(forcedRefused)
        _ = commits.written()
        #expect(commits.isBusy, "the queued forced commit keeps commands waiting")
        let queuedForced = commits.takeQueued()
        #expect(queuedForced)
        let queuedTwice = commits.takeQueued()
        #expect(!queuedTwice, "it runs once")
    }

    @Test("a commit nothing forces is due once the interval has passed since the last one began")
    func interval() {
        var commits = Self.gathering()
        #expect(commits.isDue(at: 0))
        _ = commits.begin(force: false, at: 10, ended: false) { _ in }
        _ = commits.written()
        #expect(!commits.isDue(at: 11.9))
        #expect(commits.isDue(at: 12))
    }

    @Test("a failed batch goes back in front of what came since; the store is unhealthy until a commit is written")
    func retry() throws {
        var commits = Self.gathering(rows: 2)
        let first = commits.begin(force: false, at: 10, ended: false) { _ in }
        let failed = try #require(first)
        commits.pending?.points.append(SessionRecordingTests.point(10, metres: 30))
        let firstIsNews = commits.failed(failed, error: DiskFull())
        #expect(firstIsNews, "the first failure is news")
        #expect(commits.pending?.points.map(\.time) == [0, 1, 10])
        #expect(commits.status(consolidationError: nil) == StoreStatus(health: .error, pending: 3, lastError: "disk full"))
        let retried = commits.begin(force: true, at: 12, ended: false) { _ in }
        let again = try #require(retried)
        let secondIsNews = commits.failed(again, error: DiskFull())
        #expect(!secondIsNews, "a second failure is not")
        let thirdTry = commits.begin(force: true, at: 14, ended: false) { _ in } != nil
        #expect(thirdTry)
        let recovered = commits.written()
        #expect(recovered, "written again: the store recovered")
        #expect(commits.status(consolidationError: nil) == StoreStatus(health: .ok, pending: 0, lastError: nil))
    }

    @Test("rows in a write not yet heard of are still pending: a refused write is not hidden while the next is in flight")
    func inFlightRowsArePending() throws {
        var commits = Self.gathering(rows: 2)
        let first = try #require(commits.begin(force: false, at: 10, ended: false) { _ in })
        commits.pending?.points.append(SessionRecordingTests.point(10, metres: 30))
        #expect(commits.status(consolidationError: nil).pending == 3, "two in flight, one gathered")
        _ = commits.failed(first, error: DiskFull())
        let again = try #require(commits.begin(force: false, at: 12, ended: false) { _ in })
        #expect(again.rowCount == 3)
        #expect(commits.status(consolidationError: nil).pending == 3, "the retry in flight is not on disk yet")
        _ = commits.written()
        #expect(commits.status(consolidationError: nil).pending == 0)
    }

    @Test("the batch a session ended with, refused, is pending again: the session is still being recorded")
    func endedBatchRefused() throws {
        var commits = Self.gathering(rows: 1)
        let ending = commits.begin(force: true, at: 10, ended: true) { _ in }
        let last = try #require(ending)
        #expect(commits.session == 5 && commits.pending == nil)
        _ = commits.failed(last, error: DiskFull())
        #expect(commits.session == 5 && commits.pending?.rowCount == 1)
    }

    @Test("a damaged database found at start is the store's last error until a commit is written")
    func damageAtStart() {
        let commits = CommitScheduler(interval: 2, damage: "kept aside as moonrunner.db.damaged")
        #expect(commits.status(consolidationError: nil).lastError == "kept aside as moonrunner.db.damaged")
        #expect(commits.status(consolidationError: "locked").health == .error)
    }
}
