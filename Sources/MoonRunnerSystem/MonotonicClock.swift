import Glibc

/// CLOCK_MONOTONIC: what every timeout, interval and deadline outside the
/// engine is measured on, so that a step of the wall clock (NTP, or a Pi
/// without a real-time clock setting its time late) moves none of them.
public enum MonotonicClock {
    /// Seconds since an arbitrary instant (the boot).
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// The instant `seconds` from now, as `pthread_cond_timedwait` takes it
    /// on a condition whose clock is CLOCK_MONOTONIC.
    public static func deadline(after seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let whole = Int(seconds.rounded(.down))
        var nanos = now.tv_nsec + Int((seconds - Double(whole)) * 1e9)
        var secs = now.tv_sec + whole
        if nanos >= 1_000_000_000 {
            secs += 1
            nanos -= 1_000_000_000
        }
        return timespec(tv_sec: secs, tv_nsec: nanos)
    }
}
