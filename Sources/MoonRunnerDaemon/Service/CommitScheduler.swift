import MoonRunnerProtocol
import MoonRunnerStore

/// When the rows a session gathers go to the store, and what becomes of them
/// when it fails. A commit runs once `store.commit_interval_s` has passed, and
/// at once after an event is journaled; one at a time, so a forced commit
/// asked for while another is in flight runs right after it. A batch the
/// store refuses goes back in front of what came since and the next commit
/// retries it whole: a full disk loses nothing recorded in memory, and
/// recording carries on. A command that replies "done" waits until no commit
/// is in flight or queued. A value: the session service asks it what to
/// write and tells it how the write went; the waiting and the health of the
/// store are kept here, the writing is the service's.
struct CommitScheduler: Sendable {
    /// Seconds between commits that nothing forces.
    let interval: Double
    /// Rows gathered for the next commit; nil outside a session.
    var pending: CommitBatch?
    /// The rows of the batch in flight (not on disk until its write is heard
    /// of); nil when no commit is in flight.
    private var inFlightRows: Int?
    /// The stopped session whose last batch is in flight: still the session until that
    /// batch is written, so `?SESSIONS` never reads its stored row, still `recording`.
    private var closing: Int64?
    /// A forced commit asked for while one was in flight: it runs right after.
    private var queued = false
    private var lastCommit = -Double.infinity
    /// Commands waiting for the commits in flight to be written.
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// False from a failed write or read until a commit is written again.
    private(set) var storeHealthy = true
    /// The last failure of the store, for `STATUS.store.last_error`.
    private(set) var storeError: String?

    /// `damage`: what the store found wrong at start (a damaged database kept aside).
    init(interval: Double, damage: String? = nil) {
        self.interval = interval
        storeError = damage
    }

    /// The session whose rows are gathered or not yet written: the one being
    /// recorded (a stopped session stays it until its last batch is written).
    var session: Int64? { pending?.sessionID ?? closing }

    /// Whether a commit nothing forces is due at `now`.
    func isDue(at now: Double) -> Bool { now - lastCommit >= interval }

    /// Whether a command must wait before it says it is done.
    var isBusy: Bool { inFlightRows != nil || queued }

    /// The batch to write now, or nil: nothing is gathered, or a commit is in
    /// flight (a forced one then runs right after it). `close` completes the
    /// batch as it leaves (the open step second, the engine's snapshot); after
    /// the batch a session `ended` with, nothing more is gathered.
    mutating func begin(force: Bool, at now: Double, ended: Bool, close: (inout CommitBatch) -> Void) -> CommitBatch? {
        if inFlightRows != nil {
            if force { queued = true }
            return nil
        }
        guard var batch = pending else { return nil }
        close(&batch)
        pending = ended ? nil : CommitBatch(sessionID: batch.sessionID, snapshot: batch.snapshot)
        closing = ended ? batch.sessionID : nil
        inFlightRows = batch.rowCount
        lastCommit = now
        return batch
    }

    /// The batch in flight was written. True when the store had failed before (it recovered).
    mutating func written() -> Bool {
        inFlightRows = nil
        closing = nil
        defer {
            storeHealthy = true
            storeError = nil
        }
        return !storeHealthy
    }

    /// The store refused `batch`: its rows go back in front of what came
    /// since (the batch a session ended with is pending again, as it was).
    /// True when the store was healthy until now, as `storeFailed`.
    mutating func failed(_ batch: CommitBatch, error: any Error) -> Bool {
        inFlightRows = nil
        closing = nil
        if pending == nil {
            pending = batch
        } else {
            pending?.putBack(batch)
        }
        return storeFailed(error)
    }

    /// The store failed a write or a read. True when it was healthy until now
    /// (the failure is news, worth a line in the log).
    mutating func storeFailed(_ error: any Error) -> Bool {
        defer {
            storeHealthy = false
            storeError = "\(error)"
        }
        return storeHealthy
    }

    /// After a write: true when a forced commit is queued (it is taken off the queue, to run now).
    mutating func takeQueued() -> Bool {
        defer { queued = false }
        return queued
    }

    /// A command waits until the commits are settled (`isBusy` must be true).
    mutating func wait(_ waiter: CheckedContinuation<Void, Never>) {
        waiters.append(waiter)
    }

    /// The commands that may go on now: all of them once nothing is in flight or queued.
    mutating func settled() -> [CheckedContinuation<Void, Never>] {
        guard !isBusy else { return [] }
        defer { waiters = [] }
        return waiters
    }

    /// `STATUS.store`: this health and the rows not yet known to be on disk
    /// (gathered, or in a write not yet heard of), with the store's own
    /// trouble taking its journal in.
    func status(consolidationError: String?) -> StoreStatus {
        StoreStatus(healthy: storeHealthy, lastError: storeError,
                    pendingRows: (pending?.rowCount ?? 0) + (inFlightRows ?? 0),
                    consolidationError: consolidationError)
    }
}
