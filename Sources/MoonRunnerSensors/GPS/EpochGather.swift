/// When the gpsd client may take an epoch as complete and hand it over.
///
/// Receivers spread an epoch over much of the second: at 9600 baud a u-blox
/// sends GGA, GSA, GSV and RMC over about 0.7 s, and gpsd sends a TPV for the
/// GGA (its speed from the change of position) and another for the RMC (the
/// receiver's Doppler speed). An epoch handed over before its last TPV has
/// gpsd's guess of the speed in place of the receiver's measure. So the
/// client learns how many TPVs an epoch brings (a TPV that comes after its
/// epoch left raises the count) and waits for them all (or for the next
/// epoch); and it learns how long they take to come, so that it can sleep
/// through them and read them at once (one wake an epoch, not one a report).
/// Times are monotonic seconds, scaled for a replay's speed.
public struct EpochGather: Sendable, Equatable {
    /// The sleep at 1x before anything is learned, in epoch intervals.
    public static let initial = 0.5
    /// The longest sleep, in epoch intervals: the next epoch's first report should come after it.
    public static let longest = 0.92
    /// How long an epoch waits for its missing TPVs, in epoch intervals (the
    /// next epoch's first also completes it, as the end of the connection does).
    public static let patience = 1.5
    /// The shortest epoch interval taken for one (a 10 Hz receiver's), receiver seconds.
    public static let shortestInterval = 0.1
    /// The least patience in seconds, whatever the replay's speed.
    public static let leastPatience = 0.25

    /// How long to sleep once an epoch's first TPV is here.
    public private(set) var sleep: Double
    /// How long after its first TPV an epoch is handed over, complete or not.
    public private(set) var deadline: Double
    /// TPVs an epoch brings.
    public private(set) var reports = 1
    /// Receiver seconds between epochs: 1 until a faster receiver shows otherwise.
    public private(set) var interval = 1.0
    private var lastEpoch = Double.nan
    private let scale: Double
    /// Epochs gone in a row with fewer TPVs than `reports`, and the most one of them had.
    private var short = 0
    private var shortMost = 0
    /// Epochs gone short in a row after which `reports` is learned down again.
    public static let unlearnAfter = 3

    /// `speed`: a replay's speed (1 for a receiver); the times shrink with it.
    public init(speed: Double) {
        scale = 1 / max(1, speed)
        sleep = Self.initial * scale
        deadline = Self.deadline(interval: 1, scale: scale)
    }

    /// A fast replay's feed stalls for a few milliseconds when the machine is
    /// busy: epochs 25 ms apart are given as long as a busy scheduler takes.
    private static func deadline(interval: Double, scale: Double) -> Double {
        max(patience * interval * scale, leastPatience)
    }

    /// An epoch of receiver time `time` was handed over. A receiver sending
    /// 5 or 10 epochs a second shortens the sleep to under its interval, so
    /// that no epoch waits for the next and each keeps its own arrival.
    public mutating func handedOver(receiverTime time: Double) {
        defer { if time.isFinite { lastEpoch = time } }
        guard time.isFinite, lastEpoch.isFinite, time > lastEpoch else { return }
        let d = max(Self.shortestInterval, time - lastEpoch)
        guard d < interval else { return }
        interval = d
        sleep = min(sleep, Self.longest * interval * scale)
        deadline = Self.deadline(interval: interval, scale: scale)
    }

    /// Whether an epoch with `count` TPVs has them all.
    public func complete(_ count: Int) -> Bool { count >= reports }

    /// The epoch handed over with `count` TPVs has had `late` more since.
    public mutating func late(_ late: Int, after count: Int) {
        reports = min(4, max(reports, count + late))
        (short, shortMost) = (0, 0)
    }

    /// An epoch went with `count` TPVs. When `unlearnAfter` in a row went with
    /// fewer than `reports` (gpsd sent two for an epoch once, at the start, and
    /// one since), the count is learned down to what they brought: otherwise
    /// every epoch would wait for a TPV that never comes and go a second late.
    public mutating func went(with count: Int) {
        guard count < reports else {
            (short, shortMost) = (0, 0)
            return
        }
        (short, shortMost) = (short + 1, max(shortMost, count))
        if short >= Self.unlearnAfter {
            reports = max(1, shortMost)
            (short, shortMost) = (0, 0)
        }
    }

    /// An epoch's last TPV came `seconds` after its first, past the sleep.
    public mutating func took(_ seconds: Double) {
        guard seconds.isFinite else { return }
        sleep = min(Self.longest * interval * scale, max(sleep, seconds * 1.1))
    }
}
