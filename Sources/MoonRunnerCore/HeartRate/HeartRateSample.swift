/// One heart-rate reading as the engine takes it, like `IMUSample` and
/// `BaroSample`: a strap's notification (`HeartRateNotification`) or a trace
/// row, stamped `t` with the engine-clock instant it arrived. What the session
/// keeps of it is a `HeartRatePoint`.
public struct HeartRateSample: Sendable, Equatable {
    /// Engine clock, seconds.
    public var t: Double
    /// Beats per minute as sent; 0 when the strap sent none (a trace's empty cell).
    public var bpm: Int
    public var contact: HeartRateNotification.SensorContact
    /// R–R intervals, milliseconds, oldest first.
    public var rrMilliseconds: [Double]

    public init(t: Double, bpm: Int, contact: HeartRateNotification.SensorContact = .notSupported,
                rrMilliseconds: [Double] = []) {
        self.t = t
        self.bpm = bpm
        self.contact = contact
        self.rrMilliseconds = rrMilliseconds
    }

    public init(t: Double, notification m: HeartRateNotification) {
        self.init(t: t, bpm: m.bpm, contact: m.contact, rrMilliseconds: m.rrMilliseconds)
    }
}

/// What a reading is worth, by the rules: no skin contact or a value
/// of 0 is *missing* (never 0, never the last value again); a value outside
/// what a human heart does is *implausible*, refused and counted.
public enum HeartRateValidity: Sendable, Equatable {
    case valid
    case missing
    case implausible

    /// The lowest and highest heart rates taken, bpm: the slowest resting hearts
    /// measured are near 27 bpm (athletes' bradycardia), and the issue sets 250
    /// as the top (above any age's maximum: Tanaka gives 208 at birth).
    public static let plausible = 25...250
    /// R–R intervals taken, milliseconds: beats at 300 down to 24 per minute.
    public static let plausibleRR = 200.0...2500.0

    public init(_ s: HeartRateSample) {
        if s.contact == .notDetected || s.bpm == 0 {
            self = .missing
        } else {
            self = Self.plausible.contains(s.bpm) ? .valid : .implausible
        }
    }
}

/// Readings and RR intervals refused or missing, since the session (or analysis) began.
public struct HeartRateCounters: Sendable, Equatable, Codable {
    /// Readings taken as heart rates.
    public var samples = 0
    /// Readings without a heart rate (no skin contact, a value of 0).
    public var missing = 0
    /// Readings outside 25–250 bpm, or out of order.
    public var rejected = 0
    /// Of those, readings stamped before the one before them (real straps and
    /// watches do that now and then): dropped, the rest kept.
    public var outOfOrder = 0
    /// R–R intervals kept and refused (outside 200–2500 ms).
    public var rrIntervals = 0
    public var rrRejected = 0

    public init() {}

    private enum CodingKeys: String, CodingKey {
        case samples, missing, rejected, outOfOrder = "out_of_order", rrIntervals = "rr_intervals",
             rrRejected = "rr_rejected"
    }
}
