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
    /// The sleep at 1x before anything is learned.
    public static let initial = 0.5
    /// The longest sleep at 1x: the next epoch's first report should come after it.
    public static let longest = 0.92
    /// How long at 1x an epoch waits for its missing TPVs (the next epoch's
    /// first also completes it, as the end of the connection does).
    public static let patience = 1.5
    /// The least patience in seconds, whatever the replay's speed.
    public static let leastPatience = 0.25

    /// How long to sleep once an epoch's first TPV is here.
    public private(set) var sleep: Double
    /// How long after its first TPV an epoch is handed over, complete or not.
    public let deadline: Double
    private let longestSleep: Double
    /// TPVs an epoch brings.
    public private(set) var reports = 1
    private let scale: Double

    /// `speed`: a replay's speed (1 for a receiver); the times shrink with it.
    public init(speed: Double) {
        scale = 1 / max(1, speed)
        sleep = Self.initial * scale
        // A fast replay's feed stalls for a few milliseconds when the machine is
        // busy: epochs 25 ms apart are given as long as a busy scheduler takes.
        deadline = max(Self.patience * scale, Self.leastPatience)
        longestSleep = Self.longest * scale
    }

    /// Whether an epoch with `count` TPVs has them all.
    public func complete(_ count: Int) -> Bool { count >= reports }

    /// The epoch handed over with `count` TPVs has had `late` more since.
    public mutating func late(_ late: Int, after count: Int) {
        reports = min(4, max(reports, count + late))
    }

    /// An epoch's last TPV came `seconds` after its first, past the sleep.
    public mutating func took(_ seconds: Double) {
        guard seconds.isFinite else { return }
        sleep = min(longestSleep, max(sleep, seconds * 1.1))
    }
}
