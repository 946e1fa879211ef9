import Synchronization

/// Batches a sensor thread keeps for the daemon to take when it next runs
/// anyway (with a GPS fix, once a second), instead of waking it for each:
/// every wake of the daemon's threads costs a Pi Zero's CPU its sleep. The
/// thread rings only when nobody took them for `hold` seconds (no fixes) or
/// something is urgent (the health changed, the recording ended).
final class BatchHold<Batch: Sendable>: Sendable {
    private struct State {
        var enabled = false
        var hold = 1.5
        var batches: [Batch] = []
        /// Engine time of the oldest batch kept; NaN while none is.
        var since = Double.nan
    }
    private let state = Mutex(State())

    init() {}

    /// From now on batches are kept, for up to `seconds` of engine time.
    func enable(hold seconds: Double) {
        state.withLock {
            $0.enabled = true
            $0.hold = seconds
        }
    }

    var isEnabled: Bool { state.withLock { $0.enabled } }

    /// Keeps `batch`, read at engine time `t`; true when the consumer must be rung now.
    func keep(_ batch: Batch, at t: Double, urgent: Bool) -> Bool {
        state.withLock { s in
            s.batches.append(batch)
            if s.since.isNaN { s.since = t }
            return urgent || t - s.since >= s.hold
        }
    }

    /// Every batch kept, oldest first.
    func take() -> [Batch] {
        state.withLock { s in
            defer {
                s.batches.removeAll(keepingCapacity: true)
                s.since = .nan
            }
            return s.batches
        }
    }
}
