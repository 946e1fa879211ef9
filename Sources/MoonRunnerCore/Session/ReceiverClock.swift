/// Learns UTC from the GPS receiver: the offset between the engine clock and
/// the receiver's time.
///
/// A Pi has no real-time clock (off the network it boots in 1970 or at its
/// last shutdown), so the engine clock is a good stopwatch and a poor
/// calendar. Each fix arrives a little after its receiver UTC, so the largest
/// `receiver time − arrival` seen (the least-delayed fix) is the best offset.
/// When `jumpFixes` fixes in a row agree on an offset more than
/// `jumpTolerance` seconds away (a week-number roll-over, a receiver that
/// corrected itself, a replayed log starting again), it is taken instead.
/// Pure value type; time as input.
public struct ReceiverClock: Sendable, Equatable {
    /// UTC minus engine time, nil before the first timed fix.
    public private(set) var offset: Double?
    private var runOffset = Double.nan
    private var runLength = 0

    public static let jumpTolerance = 30.0
    public static let jumpFixes = 5

    public init() {}

    /// A fix stamped `receiverTime` (UNIX seconds) arrived at engine time `arrival`.
    public mutating func observe(receiverTime: Double, arrival: Double) {
        guard receiverTime.isFinite, arrival.isFinite else { return }
        let value = receiverTime - arrival
        guard let current = offset else {
            offset = value
            return
        }
        if abs(value - current) <= Self.jumpTolerance {
            offset = max(current, value)
            runLength = 0
            return
        }
        if runLength > 0, abs(value - runOffset) <= Self.jumpTolerance {
            runLength += 1
            runOffset = max(runOffset, value)
        } else {
            runLength = 1
            runOffset = value
        }
        if runLength >= Self.jumpFixes {
            offset = runOffset
            runLength = 0
        }
    }

    /// UTC of engine time `t`: the receiver's when known, else `t` itself (the
    /// system clock is the best there is).
    public func utc(_ t: Double) -> Double { t + (offset ?? 0) }
}
