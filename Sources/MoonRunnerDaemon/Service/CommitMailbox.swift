import MoonRunnerStore
import Synchronization

/// Where the journal's queue leaves the outcome of a routine commit for the
/// session service to take at its next input: the write is on disk as soon
/// as before, but telling the service costs no wake of its own. When the
/// service waits for it (a command's reply, a forced commit behind it), the
/// queue hands it over at once instead.
final class CommitMailbox: Sendable {
    struct Outcome: Sendable {
        let batch: CommitBatch
        /// Whether the database is due to take the journal in; the error when the write failed.
        let result: Result<Bool, any Error>
    }

    private struct State {
        var outcome: Outcome?
        var waiter: CheckedContinuation<Outcome, Never>?
    }
    private let state = Mutex(State())

    init() {}

    /// The journal's queue: the commit's outcome, to the waiter or the box.
    func deliver(_ outcome: Outcome) {
        let waiter = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
            guard let w = s.waiter else {
                s.outcome = outcome
                return nil
            }
            s.waiter = nil
            return w
        }
        waiter?.resume(returning: outcome)
    }

    /// The outcome, if the queue has left it.
    func take() -> Outcome? {
        state.withLock { s in
            defer { s.outcome = nil }
            return s.outcome
        }
    }

    /// Waits for the outcome of the commit in flight (one waiter at a time).
    func wait() async -> Outcome {
        await withCheckedContinuation { (c: CheckedContinuation<Outcome, Never>) in
            let now = state.withLock { s -> Outcome? in
                if let o = s.outcome {
                    s.outcome = nil
                    return o
                }
                s.waiter = c
                return nil
            }
            if let now { c.resume(returning: now) }
        }
    }
}
