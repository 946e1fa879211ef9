import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The time base the IMU path runs on: "now" and "block this thread for a while", both in
/// engine-clock seconds.
///
/// Injected rather than read from the system so that tests can step a virtual clock
/// deterministically (their `sleep` just advances it) while the daemon uses
/// `EngineClock`, possibly running 10× faster than real time.
public struct IMUClock: Sendable {
    public var now: @Sendable () -> Double
    /// Blocks the calling thread for `seconds` of this clock's time.
    public var sleep: @Sendable (_ seconds: Double) -> Void
    /// Receiver (GPS) time minus this clock's time, once known: a replayed trace
    /// recorded on the receiver's clock is placed with it. Nil when unknown.
    public var receiverOffset: @Sendable () -> Double?
    /// Told after every read that everything due up to `through` was taken
    /// and how far the clock may run past it before the reader's FIFO fills
    /// (`lead`): a replay's clock waits for a reader that fell behind.
    /// `through` is `-infinity` when the reader parks its device, so that it
    /// holds nothing back meanwhile.
    public var caughtUp: @Sendable (_ through: Double, _ lead: Double) -> Void
    /// Blocks for `seconds` of this clock's time or until `signal` is
    /// signalled (true), whichever comes first: a thread sleeps its whole
    /// pause in one wait and still wakes at once for `stop()`. Nil where time
    /// is stepped by `sleep` (tests' virtual clocks).
    public var wait: (@Sendable (_ seconds: Double, _ signal: DispatchSemaphore) -> Bool)?

    public init(now: @escaping @Sendable () -> Double,
                sleep: @escaping @Sendable (_ seconds: Double) -> Void,
                receiverOffset: @escaping @Sendable () -> Double? = { nil },
                caughtUp: @escaping @Sendable (Double, Double) -> Void = { _, _ in },
                wait: (@Sendable (_ seconds: Double, _ signal: DispatchSemaphore) -> Bool)? = nil) {
        self.now = now
        self.sleep = sleep
        self.receiverOffset = receiverOffset
        self.caughtUp = caughtUp
        self.wait = wait
    }

    /// The daemon's engine clock; sleeps are scaled to real time by its speed.
    public static func engine(_ clock: EngineClock) -> IMUClock {
        IMUClock(now: { clock.now() }, sleep: { seconds in
            let real = max(0, seconds / clock.speed)
            guard real > 0 else { return }
            var request = timespec(tv_sec: Int(real), tv_nsec: Int((real - Double(Int(real))) * 1e9))
            var remaining = timespec()
            while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
        }, receiverOffset: { clock.receiverOffset }, caughtUp: { clock.readerCaughtUp(to: $0, lead: $1) },
        wait: { seconds, signal in signal.wait(timeout: .now() + max(0, seconds / clock.speed)) == .success })
    }
}
