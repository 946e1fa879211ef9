/// The heart rate as the session engine follows it: each reading taken,
/// found missing or refused (and counted), the zone it is in (with the
/// tracker's hysteresis), and the open session's figures so far. The engine
/// holds it as `GPSFilter` holds its `Track` and decides what a reading means
/// for the session (stored while one is open, a zone crossing told while
/// recording). Time comes only from the readings and from the caller's `now`;
/// O(1) per reading beyond the tally's recent readings.
public struct HeartRateTrack: Sendable {
    /// What one reading brought.
    public struct Taken: Sendable, Equatable {
        /// The R–R intervals it carried that a heart can beat, milliseconds.
        public var rrMilliseconds: [Double]
        /// The reading as the store keeps it (NaN while missing); nil when refused as implausible.
        public var reading: HeartRatePoint?
        /// The zone it confirmed a crossing into.
        public var zone: Int?
    }

    public let profile: HeartRateProfile
    /// Readings and R–R intervals taken, missing and refused.
    public private(set) var counters = HeartRateCounters()
    /// The last heart rate taken and when (NaN after a reading without one).
    private var bpm = Double.nan
    private var time = -Double.infinity
    /// The newest reading's time: one stamped before it is out of order.
    private var newest = -Double.infinity
    private var zones: HeartRateZoneTracker
    /// The open session's figures (what `STATUS` shows live).
    private var tally: HeartRateTally

    public init(profile: HeartRateProfile) {
        self.profile = profile
        zones = HeartRateZoneTracker(floors: profile.zoneFloors)
        tally = HeartRateTally(profile: profile)
    }

    /// Takes one reading. No skin contact or a value of 0 makes the heart rate
    /// missing at once (never the last value again); a value no heart beats, or
    /// an R–R interval no heart beats, is refused and counted. Nil when the
    /// reading is stamped before the newest one (straps and watches do that now
    /// and then): refused, counted as out of order, and nothing else changes.
    public mutating func take(_ sample: HeartRateSample) -> Taken? {
        guard sample.t >= newest else {
            counters.rejected += 1
            counters.outOfOrder += 1
            return nil
        }
        newest = sample.t
        var taken = Taken(rrMilliseconds: sample.rrMilliseconds.filter { HeartRateValidity.plausibleRR.contains($0) })
        counters.rrRejected += sample.rrMilliseconds.count - taken.rrMilliseconds.count
        counters.rrIntervals += taken.rrMilliseconds.count
        switch HeartRateValidity(sample) {
        case .implausible:
            counters.rejected += 1
        case .missing:
            counters.missing += 1
            (bpm, time) = (.nan, sample.t)
            _ = zones.update(bpm: .nan, at: sample.t)
            taken.reading = HeartRatePoint(time: sample.t, bpm: .nan)
        case .valid:
            counters.samples += 1
            (bpm, time) = (Double(sample.bpm), sample.t)
            taken.reading = HeartRatePoint(time: sample.t, bpm: bpm)
            taken.zone = zones.update(bpm: bpm, at: sample.t)
        }
        return taken
    }

    /// The heart rate at `now`: the last reading's for `HeartRateSummary.hold`
    /// seconds; nil without a reading, after one without a heart rate, or later.
    public func current(at now: Double) -> Double? {
        bpm.isFinite && now - time < HeartRateSummary.hold ? bpm : nil
    }

    /// The zone at `now` (1–5, with hysteresis); nil without a heart rate.
    public func zone(at now: Double) -> Int? {
        current(at: now) == nil ? nil : zones.zone
    }

    /// A session starts: its figures start from nothing (the heart rate and its zone go on).
    public mutating func startSession() {
        tally = HeartRateTally(profile: profile)
    }

    /// A reading of the open session counts in its figures, which settle up
    /// to its time over the session's `pauses` since `start`.
    public mutating func record(_ reading: HeartRatePoint, pauses: [PauseInterval], from start: Double) {
        tally.add(reading)
        tally.settle(at: reading.time, pauses: pauses, from: start)
    }

    /// A resumed session's stored readings are its figures again, settled at `now`.
    public mutating func restore(_ readings: [HeartRatePoint], at now: Double, pauses: [PauseInterval],
                                 from start: Double) {
        tally = HeartRateTally(profile: profile)
        for r in readings { tally.add(r) }
        tally.settle(at: now, pauses: pauses, from: start)
    }

    /// The open session's figures over its moving time from `start` to `end`.
    public func summary(paused: PausedTime, from start: Double, to end: Double) -> HeartRateSummary {
        tally.summary(paused: paused, from: start, to: end)
    }
}
