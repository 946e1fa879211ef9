/// When the gpsd client should next read, so that it wakes once an epoch.
///
/// gpsd sends each epoch in several reports spread over part of the second
/// (SKY, GST, then the TPV at the end of the receiver's cycle). Woken by
/// each, the client would wake two or three times an epoch; so, once an
/// epoch has been seen complete the moment its last report came (the client
/// was waiting on the socket), the next read is due one epoch later plus a
/// small `margin`, and the client sleeps until then and reads the whole
/// epoch at once. A read at that time that finds the epoch complete says
/// nothing of when it came, so the next is due one epoch on, `drift`
/// earlier: a read that comes too soon finds the epoch incomplete, waits on
/// the socket for the rest, and learns the phase afresh (one wake more, every
/// `margin / drift` epochs). The epoch's length on this machine's clock is
/// measured between such readings, which absorbs a replay that runs a little
/// fast or slow. Times are monotonic seconds; pure.
public struct EpochPhase: Sendable, Equatable {
    /// How long after the epoch's expected end the client reads, at 1×.
    public static let margin = 0.04
    /// How much earlier each read after an unmeasured one is due, at 1×.
    public static let drift = 0.004
    /// How far the pace measured between two epochs may be from 1 / speed and be taken.
    public static let paceTolerance = 0.02
    /// Receiver seconds between two measured epochs beyond which their spacing is not trusted.
    public static let longestSpan = 60.0

    /// When the next read is due (nil: wait on the socket).
    public private(set) var due: Double?
    /// Monotonic seconds per receiver second (1 / speed until measured).
    public private(set) var rate: Double
    /// The last measured epoch: when it came (monotonic), and its receiver time.
    private var measured: Mark?
    private struct Mark: Sendable, Equatable {
        var mono: Double
        var receiver: Double
    }
    private let scale: Double

    /// `speed`: a replay's speed (1 for a receiver).
    public init(speed: Double) {
        scale = 1 / max(1, speed)
        rate = scale
    }

    /// An epoch of receiver time `receiverTime` was handed over complete at
    /// monotonic `mono`; `measured` when its last report came while the client
    /// waited on the socket (so `mono` is when it came), `interval` receiver
    /// seconds between epochs.
    public mutating func completed(receiverTime: Double, at mono: Double, measured isMeasured: Bool,
                                   interval: Double) {
        guard receiverTime.isFinite, interval > 0 else { return reset() }
        if isMeasured {
            if let m = measured, receiverTime > m.receiver, receiverTime - m.receiver <= Self.longestSpan {
                let r = (mono - m.mono) / (receiverTime - m.receiver)
                // Clocks differ by parts per million and a replay by under 1 %: a stall of the
                // machine, or a late second TPV, between the two must not teach a wrong pace.
                if abs(r / scale - 1) < Self.paceTolerance { rate = r }
            }
            measured = Mark(mono: mono, receiver: receiverTime)
            due = mono + interval * rate + Self.margin * scale
        } else if let d = due {
            due = d + interval * rate - Self.drift * scale
        }
    }

    /// An epoch was handed over incomplete, or the feed stalled or jumped:
    /// wait on the socket until the phase is measured again.
    public mutating func reset() {
        due = nil
    }

    /// Seconds to sleep before reading at monotonic `now` (nil: read now, on
    /// the socket). A due time already past by more than an epoch is stale.
    public func sleep(at now: Double, interval: Double) -> Double? {
        guard let due, due > now else { return nil }
        return due - now <= interval * rate + Self.margin * scale ? due - now : nil
    }
}
