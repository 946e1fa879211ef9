import NIOCore
import Synchronization

/// Wakes a task that sleeps until something happens or a time passes: the
/// heartbeat of an idle daemon waits on it (no timer while nobody needs one)
/// and a session starting or a watcher joining rings it. The time is an event
/// loop's timer: no thread of its own, no libdispatch timer (`EventLoopExecutor`).
final class Doorbell: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Void, Never>?
        var timer: Scheduled<Void>?
        var rung = false
    }
    private let state = Mutex(State())
    private let loop: any EventLoop

    init(loop: any EventLoop = EventLoopTaskExecutor.daemon.loop) {
        self.loop = loop
    }

    /// Sleeps `seconds` (a bell nobody else rings); cancellation ends it early.
    static func sleep(_ seconds: Double) async {
        await Doorbell().wait(upTo: seconds)
    }

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
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let timer = loop.scheduleTask(in: .nanoseconds(Int64(max(0, seconds) * 1e9))) { self.ring() }
                let now = state.withLock { s -> Bool in
                    if s.rung {
                        s.rung = false
                        return true
                    }
                    s.waiter = c
                    s.timer = timer
                    return false
                }
                if now {
                    timer.cancel()
                    c.resume()
                }
            }
        } onCancel: {
            ring()
        }
        let timer = state.withLock { s -> Scheduled<Void>? in
            s.rung = false
            defer { s.timer = nil }
            return s.timer
        }
        timer?.cancel()
    }
}
