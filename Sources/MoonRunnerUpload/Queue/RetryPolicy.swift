/// The wait before the next attempt of a job that failed: `first` after the
/// first failure, doubling with each one after, never more than `longest`
/// (a few seconds, then up to 15 minutes: a Pi back from a run is on the
/// network for hours, and a service that is down for a while is not asked
/// every few seconds). A value: time is the caller's.
public struct RetryPolicy: Sendable, Equatable {
    public var first: Double
    public var longest: Double

    public init(first: Double = 5, longest: Double = 900) {
        self.first = first
        self.longest = longest
    }

    /// Seconds to wait after `attempts` failed attempts (1 → `first`).
    public func wait(afterAttempts attempts: Int) -> Double {
        guard attempts > 1 else { return first }
        let doublings = min(attempts - 1, 30)
        return min(longest, first * Double(1 << doublings))
    }

    /// Seconds before asking again about a file the service is still reading: 2 s (Strava asks for
    /// one second or more between polls), doubling to a minute.
    public static func poll(afterPolls polls: Int) -> Double {
        min(60, 2 * Double(1 << min(max(polls, 0), 5)))
    }
}

/// Wakes the queue early: a new job, a retry asked for, the network back.
/// A wait ends at the latest after its `seconds`, or when the task is cancelled.
actor Wakeup {
    private var waiter: CheckedContinuation<Void, Never>?
    private var pending = false
    private var generation = 0

    func fire() {
        if let w = waiter {
            waiter = nil
            w.resume()
        } else {
            pending = true
        }
    }

    func wait(seconds: Double) async {
        if pending {
            pending = false
            return
        }
        generation += 1
        let mine = generation
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                waiter = c
                Task { [weak self] in
                    try? await Task.sleep(for: .seconds(max(0.01, seconds)))
                    await self?.expire(mine)
                }
            }
        } onCancel: {
            Task { await self.fire() }
        }
    }

    private func expire(_ g: Int) {
        guard g == generation, let w = waiter else { return }
        waiter = nil
        w.resume()
    }
}
