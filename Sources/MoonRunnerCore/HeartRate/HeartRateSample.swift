/// One heart-rate reading as the engine takes it: a strap's notification (or
/// a trace row) stamped with the engine-clock instant it arrived.
public struct HeartRateSample: Sendable, Equatable {
    /// Engine clock, seconds.
    public var t: Double
    /// Beats per minute as sent; 0 when the strap sent none (a trace's empty cell).
    public var bpm: Int
    public var contact: HeartRateMeasurement.SensorContact
    /// R–R intervals, milliseconds, oldest first.
    public var rrMilliseconds: [Double]

    public init(t: Double, bpm: Int, contact: HeartRateMeasurement.SensorContact = .notSupported,
                rrMilliseconds: [Double] = []) {
        self.t = t
        self.bpm = bpm
        self.contact = contact
        self.rrMilliseconds = rrMilliseconds
    }

    public init(t: Double, measurement m: HeartRateMeasurement) {
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

/// A reading as the store keeps it: its time and its heart rate (NaN while missing).
public struct HeartRateReading: Sendable, Equatable {
    public var time: Double
    public var bpm: Double

    public init(time: Double, bpm: Double) {
        self.time = time
        self.bpm = bpm
    }
}

/// One R–R interval: when its notification arrived and its length in milliseconds.
public struct RRInterval: Sendable, Equatable {
    public var time: Double
    public var milliseconds: Double

    public init(time: Double, milliseconds: Double) {
        self.time = time
        self.milliseconds = milliseconds
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
