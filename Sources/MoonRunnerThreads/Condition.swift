import Glibc
import MoonRunnerSystem

/// A mutex with a condition variable, as Foundation's `NSCondition` (which
/// lives in the full Foundation, and so links ICU): `lock()`,
/// `unlock()`, `signal()`, and `wait(seconds:)` with a time limit.
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        // Waits are timed on the monotonic clock, so a step of the wall clock changes none.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    public func signal() { pthread_cond_signal(cond) }

    /// With the lock held: waits until signalled or `seconds` have passed (spurious wake-ups included, as any condition).
    public func wait(seconds: Double) {
        var deadline = MonotonicClock.deadline(after: seconds)
        _ = pthread_cond_timedwait(cond, mutex, &deadline)
    }
}
