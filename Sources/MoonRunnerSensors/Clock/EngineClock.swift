import FoundationEssentials
import Glibc
import MoonRunnerSystem
import Synchronization

/// The daemon's single time base, in seconds, shared by every input adapter.
///
/// It starts at the wall-clock time when created and then advances with the
/// monotonic clock, `speed` times faster for accelerated replays, so that it
/// never jumps when NTP, chrony or gpsd step the wall clock, and sensors
/// replayed at 10× stay in step with each other. UTC is not taken from it:
/// a Pi without a real-time clock may boot in 1970 (the core learns UTC from
/// the receiver). In a replay that follows the receiver (`followReceiver`),
/// the clock keeps pace with the GPS feed (see `ReceiverPacing`).
public final class EngineClock: Sendable {
    public let speed: Double
    private let state: Mutex<State>

    /// How far a replay may run ahead of what its sensor reader has taken
    /// (engine seconds) until the reader says (`readerCaughtUp`).
    public static let readerLead = 0.5
    /// A reader silent for this long (real seconds) no longer holds the replay back.
    static let readerStall = 1.0

    private struct State {
        var engineBase: Double
        var monoBase: Double
        var pacing: ReceiverPacing?
        /// Latest time handed out: the clock never goes back.
        var last = -Double.infinity
        /// Engine time up to which the sensor reader has taken samples, and when (real).
        var readerMark = -Double.infinity
        var readerMarkAt = -Double.infinity
        var readerLead = EngineClock.readerLead
        /// Called once, when a following clock first learns the receiver's time.
        var onReceiverKnown: (@Sendable () -> Void)?

        mutating func read(at mono: Double, speed: Double) -> Double {
            var t = engineBase + (mono - monoBase) * speed
            if let p = pacing {
                var limited = p.limit(t, real: mono)
                if mono - readerMarkAt < EngineClock.readerStall {
                    limited = min(limited, max(readerMark + readerLead, last))
                }
                if limited < t {
                    // Waiting for the receiver: time stands still meanwhile.
                    engineBase = limited
                    monoBase = mono
                    t = limited
                }
            }
            last = max(last, t)
            return last
        }
    }

    /// `offset` shifts the start (used after a restart so that the clock never
    /// runs behind times already stored).
    public init(speed: Double = 1, offset: Double = 0, followReceiver: Bool = false) {
        self.speed = speed
        state = Mutex(State(engineBase: Date().timeIntervalSince1970 + offset, monoBase: MonotonicClock.now(),
                            pacing: followReceiver ? ReceiverPacing() : nil))
    }

    /// The engine time of a moment `MonotonicClock` gave a little while ago
    /// (when a report arrived, read later).
    public func time(atMonotonic mono: Double) -> Double {
        now() - max(0, MonotonicClock.now() - mono) * speed
    }

    /// Engine-clock seconds now.
    public func now() -> Double {
        let mono = MonotonicClock.now()
        return state.withLock { $0.read(at: mono, speed: speed) }
    }

    /// The receiver reported time `time` (UNIX seconds) just now. Returns the
    /// engine time to stamp the report with: now, or, for a clock that follows
    /// the receiver, the engine instant of `time` itself (see `ReceiverPacing`).
    @discardableResult
    public func observeReceiver(time: Double) -> Double {
        let mono = MonotonicClock.now()
        let (stamp, known) = state.withLock { s -> (Double, (@Sendable () -> Void)?) in
            let t = s.read(at: mono, speed: speed)
            guard var pacing = s.pacing else { return (t, nil) }
            let first = pacing.offset == nil
            var target = pacing.observe(receiverTime: time, engine: t, real: mono)
            s.pacing = pacing
            // Pulled forward no further than the sensor reader can follow.
            if mono - s.readerMarkAt < EngineClock.readerStall {
                target = min(target, max(s.readerMark + s.readerLead, t))
            }
            if target > t {
                s.engineBase = target
                s.monoBase = mono
                s.last = target
            }
            let known = first ? s.onReceiverKnown : nil
            if first { s.onReceiverKnown = nil }
            return (pacing.engineTime(of: time) ?? t, known)
        }
        known?()
        return stamp
    }

    /// Runs `body` (once, on the GPS client's thread) when a clock that
    /// follows the receiver first learns its time, at once if it has.
    public func whenReceiverKnown(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            guard let pacing = s.pacing, pacing.offset == nil else { return true }
            s.onReceiverKnown = body
            return false
        }
        if now { body() }
    }

    /// The sensor reader has taken every sample up to engine time `t`. A replay
    /// that follows the receiver waits for a reader that fell behind (a busy
    /// machine) instead of overflowing the emulated FIFO: a replay loses
    /// nothing to the machine's load. A live clock ignores it.
    public func readerCaughtUp(to t: Double, lead: Double = EngineClock.readerLead) {
        let mono = MonotonicClock.now()
        state.withLock { s in
            guard s.pacing != nil else { return }
            if t == -Double.infinity {
                // The reader let go (its device sleeps): nothing of it holds the clock.
                s.readerMark = -Double.infinity
                s.readerMarkAt = -Double.infinity
                return
            }
            s.readerMark = max(s.readerMark, t)
            s.readerMarkAt = mono
            s.readerLead = lead
        }
    }

    /// Receiver time minus engine time, once a following clock has seen the
    /// receiver; nil otherwise. A replayed trace on the receiver's clock is
    /// placed with it.
    public var receiverOffset: Double? { state.withLock { $0.pacing?.offset } }

    /// Real (unscaled) seconds until the engine clock reaches `t`.
    public func realDelay(until t: Double) -> Double {
        max(0, (t - now()) / speed)
    }
}
