import Foundation

/// The daemon's single time base, in seconds, shared by every input adapter.
///
/// It starts at the wall-clock time when created and then advances with the
/// monotonic clock, `speed` times faster for accelerated replays, so that it
/// never jumps when NTP adjusts the wall clock and sensors replayed at 10×
/// stay in step with each other.
public struct EngineClock: Sendable {
    public let speed: Double
    private let wallStart: Double
    private let monoStart: Double

    /// `offset` shifts the start (used after a restart so that the clock never
    /// runs behind times already stored).
    public init(speed: Double = 1, offset: Double = 0) {
        self.speed = speed
        wallStart = Date().timeIntervalSince1970 + offset
        monoStart = EngineClock.monotonic()
    }

    /// Engine-clock seconds now.
    public func now() -> Double {
        wallStart + (EngineClock.monotonic() - monoStart) * speed
    }

    /// Real (unscaled) seconds until the engine clock reaches `t`.
    public func realDelay(until t: Double) -> Double {
        max(0, (t - now()) / speed)
    }

    /// CLOCK_MONOTONIC in seconds.
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
