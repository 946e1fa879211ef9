import NIOCore
import Synchronization

/// Wakes a task that sleeps until something happens or a time passes: the
/// heartbeat waits on it (no timer while nobody needs one) and a session
/// starting or a watcher joining rings it. The time is the daemon's event
/// loop's timer: no thread of its own, no libdispatch timer
/// (`EventLoopTaskExecutor`).
final class Doorbell: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Void, Never>?
        var rung = false
    }
    private let state = Mutex(State())

    init() {}

    /// Wakes the waiter now, or the next `wait` at once.
    func ring() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiter else {
                s.rung = true
                return nil
            }
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }

    /// Returns when rung (or rung since the last wait), after `seconds`, or
    /// when the task is cancelled.
    func wait(upTo seconds: Double) async {
        let timer = EventLoopTaskExecutor.daemon.loop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { self.ring() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.rung {
                        s.rung = false
                        return true
                    }
                    s.waiter = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            ring()
        }
        timer.cancel()
        state.withLock { $0.rung = false }
    }
}
