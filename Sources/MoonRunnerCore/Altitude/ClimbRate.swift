import Glibc

/// How fast the wearer is climbing now, metres per hour: what a hiker reads
/// ("400 m/h") to pace a long ascent.
///
/// Fed the session's counted elevation gain (`ClimbCounter`'s: hysteresis
/// against altitude noise, so standing or walking on the level adds nothing)
/// against its moving time, and smoothed with a time constant of 2 minutes
/// of moving time: the gain comes in a step of a band or more where a climb
/// is confirmed, and a hiker's rate is steady over minutes, not seconds. Pauses
/// neither count nor dilute it. O(1) state; time is an argument.
public struct ClimbRate: Sendable, Equatable {
    /// Seconds of moving time the average spans.
    public static let timeConstant = 120.0
    private var lastGain = Double.nan
    private var lastMoving = Double.nan
    /// m/s of ascent.
    private var rate = 0.0

    public init() {}

    /// The climb so far, metres per hour.
    public var metresPerHour: Double { rate * 3600 }

    /// The session's elevation gain (m) after `moving` seconds of moving time.
    public mutating func add(gain: Double, moving: Double) {
        defer {
            lastGain = gain
            lastMoving = moving
        }
        guard lastMoving.isFinite, gain.isFinite else { return }
        let dt = moving - lastMoving
        guard dt > 0 else { return }
        let k = 1 - exp(-dt / Self.timeConstant)
        rate += k * (max(0, gain - lastGain) / dt - rate)
    }
}
