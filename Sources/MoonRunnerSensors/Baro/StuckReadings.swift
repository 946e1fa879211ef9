/// Whether a barometer has frozen. Its noise changes the raw pressure and
/// temperature words with every measurement, so the same words bit for bit
/// for `stuckAfter` seconds mean a hung device, not a steady pressure.
/// Pure: time is an argument. O(1) state.
struct StuckReadings {
    enum Verdict: Equatable {
        /// New words: a measurement to deliver.
        case fresh
        /// The last words again: nothing new, not yet for long.
        case repeated
        /// The same words for `stuckAfter` seconds: the device is to be re-initialised.
        case stuck
    }

    /// Seconds.
    let stuckAfter: Double
    private var last: (pressure: UInt32, temperature: UInt32)?
    /// When the words first repeated; NaN while they change.
    private var sameSince = Double.nan

    init(stuckAfter: Double) {
        self.stuckAfter = stuckAfter
    }

    /// The raw words of a measurement read at `t`.
    mutating func check(pressure: UInt32, temperature: UInt32, at t: Double) -> Verdict {
        if let last, last == (pressure, temperature) {
            if sameSince.isNaN { sameSince = t }
            return t - sameSince >= stuckAfter ? .stuck : .repeated
        }
        sameSince = .nan
        last = (pressure, temperature)
        return .fresh
    }
}
