import Dispatch
import FoundationEssentials
import Glibc
import MoonRunnerThreads
import Synchronization

/// The life of a sensor service's thread (IMU, barometer): started once, asked
/// to stop from any thread, waited for with a time limit, and able to sleep in
/// engine time without missing the stop.
final class SensorThread: Sendable {
    private struct Flags {
        var started = false
        var stopRequested = false
        var finished = false
        /// Someone needs the readings (a session records); false: the thread may park its device.
        var wanted = true
    }

    private let flags = Mutex(Flags())
    private let exited = DispatchSemaphore(value: 0)
    /// Signalled by `stop()`: what an idle thread (trace played out) blocks on.
    private let stopSignal = DispatchSemaphore(value: 0)
    /// Signalled by `stop()` and by `want(true)`: what a parked thread blocks on.
    private let wakeSignal = DispatchSemaphore(value: 0)

    init() {}

    var stopRequested: Bool { flags.withLock { $0.stopRequested } }

    /// False while nobody needs the readings (no session): the thread parks.
    var isWanted: Bool { flags.withLock { $0.wanted } }

    /// Whether the readings are needed; a parked thread wakes when they are again.
    func want(_ wanted: Bool) {
        let changed = flags.withLock { f -> Bool in
            defer { f.wanted = wanted }
            return f.wanted != wanted
        }
        if changed && wanted { wakeSignal.signal() }
    }

    /// For the thread: blocks while the readings are not wanted and no stop is asked for.
    func waitUntilWanted() {
        while !stopRequested && !isWanted { wakeSignal.wait() }
    }

    /// Runs `body` on a new thread named `name`, once; false when it was already
    /// started or stopped before it could start.
    func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let first = flags.withLock { f -> Bool in
            guard !f.started, !f.stopRequested else { return false }
            f.started = true
            return true
        }
        guard first else { return false }
        NamedThread.start(name: name, body)
        return true
    }

    /// Asks the thread to stop and waits (at most `timeout` seconds) until it has
    /// called `finish()`. Returns false when there is no thread to wait for (never
    /// started, or already finished): the caller then closes what the thread would have.
    @discardableResult
    func stop(timeout: Double) -> Bool {
        let wait = flags.withLock { f -> Bool in
            f.stopRequested = true
            return f.started && !f.finished
        }
        stopSignal.signal()
        wakeSignal.signal()
        guard wait else { return false }
        if exited.wait(timeout: .now() + timeout) == .success {
            exited.signal()   // let any other caller of stop() through as well
        }
        return true
    }

    /// For the thread: blocks until `stop()` (nothing can happen before it).
    func waitForStop() {
        stopSignal.wait()
    }

    /// Sleeps `seconds` of `clock` time, returning at once on `stop()`: in one
    /// wait on the stop signal where the clock can (one wakeup a pause), else
    /// in steps of at most `step`. With `once`, a wait that ends before the clock
    /// reached the deadline ends the pause all the same: a replay's clock that
    /// stood still meanwhile (waiting for the receiver) would otherwise cost a
    /// second wakeup, and a sensor read a little early loses nothing.
    func pause(_ seconds: Double, clock: IMUClock, step: Double, once: Bool = false) {
        let deadline = clock.now() + seconds
        while !stopRequested {
            let remaining = deadline - clock.now()
            if remaining <= 0 { return }
            guard let wait = clock.wait else {
                clock.sleep(min(remaining, step))
                continue
            }
            if wait(remaining, stopSignal) {
                // Left signalled for `waitForStop()` and any later pause.
                stopSignal.signal()
                return
            }
            if once { return }
        }
    }

    /// For the thread, as its last act.
    func finish() {
        flags.withLock { $0.finished = true }
        exited.signal()
    }
}
