/// GPS counts weeks in 10 bits, so a receiver (or gpsd 3.22 replaying an old
/// log: it moves dates before 2019 forward) can be off by whole multiples of
/// 1024 weeks. A trace recorded beside a GPS log on another device's clock
/// (a heart-rate strap's, a watch's) is placed on the receiver's clock by
/// that many periods when that is what separates them.
public enum WeekRollover {
    /// 1024 weeks in seconds.
    public static let period = 1024.0 * 7 * 86_400

    /// Seconds to add to a trace that starts at `traceStart` so that it lies on
    /// a receiver clock reading `receiverTime` near it: a whole number of
    /// periods when the two are that far apart (within a day), else 0.
    public static func alignment(traceStart: Double, receiverTime: Double) -> Double {
        guard traceStart.isFinite, receiverTime.isFinite else { return 0 }
        let periods = ((receiverTime - traceStart) / period).rounded()
        guard periods != 0, abs(receiverTime - traceStart - periods * period) < 86_400 else { return 0 }
        return periods * period
    }
}
