#if canImport(Glibc)
import Glibc
#endif

/// Who wears the strap: what the zones, the training load and the calories
/// from heart rate need (the `hr:` section of the configuration, with
/// `body_mass_kg`).
public struct HeartRateProfile: Sendable, Equatable {
    public enum Sex: String, Sendable, Equatable, CaseIterable {
        case male, female
        /// Not given: the mean of the two equations.
        case unspecified
    }

    /// How the five zones are placed.
    public enum ZoneModel: String, Sendable, Equatable, CaseIterable {
        /// `zoneBounds` are percentages of the maximum heart rate.
        case max
        /// Karvonen: percentages of the heart-rate reserve (max − resting) above resting.
        case reserve
        /// `zoneBounds` are heart rates, bpm.
        case bpm
    }

    public var age: Double = 35
    public var sex: Sex = .unspecified
    /// kg (`body_mass_kg`).
    public var bodyMass: Double = 70
    /// bpm; nil: Tanaka's 208 − 0.7 × age.
    public var maxBPM: Double?
    public var restingBPM: Double = 60
    public var zoneModel: ZoneModel = .max
    /// Where zones 2, 3, 4 and 5 begin: percent for `max` and `reserve`, bpm for
    /// `bpm`. Zone 1 is everything below zone 2. The default is the common
    /// five-zone model (60/70/80/90 % of maximum).
    public var zoneBounds: [Double] = [60, 70, 80, 90]

    public init() {}

    /// The maximum heart rate: the configured one, else Tanaka, Monahan & Seals
    /// (2001), "Age-predicted maximal heart rate revisited", JACC 37(1):153–156:
    /// 208 − 0.7 × age (a meta-analysis of 351 studies, 18,712 people).
    public var maximum: Double { maxBPM ?? 208 - 0.7 * age }

    /// The heart rates (bpm) where zones 2–5 begin.
    public var zoneFloors: [Double] {
        switch zoneModel {
        case .max: zoneBounds.map { maximum * $0 / 100 }
        case .reserve: zoneBounds.map { restingBPM + (maximum - restingBPM) * $0 / 100 }
        case .bpm: zoneBounds
        }
    }

    /// The zone (1–5) of a heart rate, without hysteresis.
    public func zone(of bpm: Double) -> Int {
        var z = 1
        for floor in zoneFloors where bpm >= floor { z += 1 }
        return min(z, 5)
    }

    /// Banister's training impulse per minute at `bpm` (Banister 1991, "Modeling
    /// elite athletic performance"; Morton, Fitz-Clarke & Banister 1990): the
    /// fraction of the heart-rate reserve weighted by 0.64·e^(1.92·x) for men
    /// and 0.86·e^(1.67·x) for women (the blood-lactate curves they were fitted
    /// to); unspecified takes the mean of the two.
    public func trimpPerMinute(bpm: Double) -> Double {
        let span = maximum - restingBPM
        guard span > 0, bpm.isFinite else { return 0 }
        let x = min(1, max(0, (bpm - restingBPM) / span))
        let male = 0.64 * exp(1.92 * x), female = 0.86 * exp(1.67 * x)
        let weight = switch sex {
        case .male: male
        case .female: female
        case .unspecified: (male + female) / 2
        }
        return x * weight
    }

    /// Energy per minute at `bpm`, kcal: Keytel et al. (2005), "Prediction of
    /// energy expenditure from heart rate monitoring during submaximal exercise",
    /// J Sports Sci 23(3):289–297, the equations without VO₂max (kJ/min; 4.184 kJ
    /// per kcal). They were fitted to exercise heart rates: below the point where
    /// an equation reaches zero it gives nothing rather than a negative figure.
    public func kcalPerMinute(bpm: Double) -> Double {
        guard bpm.isFinite else { return 0 }
        let male = -55.0969 + 0.6309 * bpm + 0.1988 * bodyMass + 0.2017 * age
        let female = -20.4022 + 0.4472 * bpm - 0.1263 * bodyMass + 0.074 * age
        let kJ = switch sex {
        case .male: male
        case .female: female
        case .unspecified: (male + female) / 2
        }
        return max(0, kJ) / 4.184
    }
}
