import Synchronization

/// Wakes a task that sleeps until something happens or a time passes: the
/// heartbeat of an idle daemon waits on it (no timer while nobody needs one)
/// and a session starting or a watcher joining rings it.
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

    /// Returns when rung (or rung since the last wait) or after `seconds`.
    func wait(upTo seconds: Double) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let now = self.state.withLock { s -> Bool in
                        if s.rung {
                            s.rung = false
                            return true
                        }
                        s.waiter = c
                        return false
                    }
                    if now { c.resume() }
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                self.ring()
            }
            await group.next()
            group.cancelAll()
            // The other task: a sleep cancelled rings (harmless), a waiter is resumed by it.
            await group.waitForAll()
            self.state.withLock { $0.rung = false }
        }
    }
}
