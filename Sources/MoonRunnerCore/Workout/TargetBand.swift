/// What a target measures: the word in `target_low`, `target_high` and
/// `target_ok` events.
public enum TargetMeasure: String, Sendable, Equatable, Codable, CaseIterable {
    /// The wearer's speed (a pace band is a speed band: `low` is the slow end).
    case pace
    /// Heart rate, bpm.
    case hr
    /// Steps per minute.
    case cadence
}

/// A step's target in the wearer's numbers: speed m/s, bpm or steps/min,
/// `low` ≤ `high`; `zone` when it came from a heart-rate zone. "Low" and
/// "high" are of the effort: below a pace band is slower than it.
public struct TargetBand: Sendable, Equatable, Codable {
    public var measure: TargetMeasure
    public var low: Double
    public var high: Double
    public var zone: Int?

    public init(measure: TargetMeasure, low: Double, high: Double, zone: Int? = nil) {
        self.measure = measure
        self.low = low
        self.high = high
        self.zone = zone
    }

    /// Resolves a step's target; nil for none. A zone is the profile's band:
    /// zone 1 from resting heart rate to where zone 2 begins, zone 5 up to
    /// the maximum (`HeartRateProfile.zoneFloors`).
    init?(_ target: StepTarget, profile: HeartRateProfile, step: Int) throws(WorkoutError) {
        switch target {
        case .none:
            return nil
        case let .speed(low, high):
            self.init(measure: .pace, low: low, high: high)
        case let .heartRate(low, high):
            self.init(measure: .hr, low: low.bpm(profile), high: high.bpm(profile))
            guard self.low <= self.high else {
                throw WorkoutError(step: step, "the heart-rate range \(self.low.fixed(0))–\(self.high.fixed(0)) bpm is inverted")
            }
        case let .heartRateZone(z):
            let floors = profile.zoneFloors
            guard floors.count == 4 else { throw WorkoutError(step: step, "the heart-rate profile has no five zones") }
            let bounds = [min(profile.restingBPM, floors[0])] + floors + [max(profile.maximum, floors[3])]
            self.init(measure: .hr, low: bounds[z - 1], high: bounds[z], zone: z)
        case let .cadence(low, high):
            self.init(measure: .cadence, low: low, high: high)
        }
    }

    /// Where `value` lies: 0 at `low`, 1 at `high`, below 0 under the band
    /// and above 1 over it (what the phone's band marker shows).
    public func position(of value: Double) -> Double {
        high > low ? (value - low) / (high - low) : (value < low ? -1 : value > high ? 2 : 0.5)
    }

    private enum CodingKeys: String, CodingKey { case measure, low, high, zone }
}
