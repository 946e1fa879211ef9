/// Energy of a ride without a power meter: the Compendium of Physical
/// Activities (Ainsworth et al. 2011, codes 01010–01050) gives cycling's
/// metabolic equivalents by speed, and 1 MET is 1 kcal per kg per hour.
///
/// | speed          | MET  | Compendium                                   |
/// |----------------|------|----------------------------------------------|
/// | < 16.1 km/h    | 4.0  | 01010 leisure, < 10 mph                      |
/// | 16.1–19.2      | 6.8  | 01020 10–11.9 mph, light effort              |
/// | 19.3–22.4      | 8.0  | 01030 12–13.9 mph, moderate effort           |
/// | 22.5–25.6      | 10.0 | 01040 14–15.9 mph, vigorous effort           |
/// | 25.7–32.1      | 12.0 | 01050 16–19.9 mph, very fast                 |
/// | ≥ 32.2         | 15.8 | 01060 > 20 mph, racing                       |
///
/// Speed alone misjudges hills both ways, so each stretch's grade counts too:
/// a stretch climbing 4 % or more is at least "vigorous effort" (10.0) — at
/// 5 m/s a 4 % climb takes ~2.9 W/kg at the pedals (gravity 2.0, rolling and
/// air the rest), ~12 W/kg of metabolism at 24 % efficiency, about 10 MET,
/// where the speed bands would say leisure — and one descending 3 % or more
/// is freewheeling, the lowest band (4.0), whatever its speed.
public enum CyclingMETs {
    /// The bands: (lowest speed in m/s, MET).
    static let bands: [(from: Double, met: Double)] = [
        (0, 4.0), (10 * 1609.344 / 3600, 6.8), (12 * 1609.344 / 3600, 8.0), (14 * 1609.344 / 3600, 10.0),
        (16 * 1609.344 / 3600, 12.0), (20 * 1609.344 / 3600, 15.8),
    ]
    /// Grades (fractions) from which a stretch is a climb or a descent.
    static let climbing = 0.04
    static let descending = -0.03
    static let uphillMET = 10.0

    /// The metabolic equivalent of riding at `speed` m/s on `grade`.
    public static func met(speed: Double, grade: Double) -> Double {
        let v = speed.isFinite ? speed : 0
        let bySpeed = bands.last { v >= $0.from }?.met ?? bands[0].met
        if grade.isFinite, grade >= climbing { return max(bySpeed, uphillMET) }
        if grade.isFinite, grade <= descending { return bands[0].met }
        return bySpeed
    }

    /// kcal spent riding for `seconds` at `speed` m/s on `grade`, `bodyMass` kg.
    public static func kcal(speed: Double, grade: Double, seconds: Double, bodyMass: Double) -> Double {
        guard seconds > 0, bodyMass > 0 else { return 0 }
        return met(speed: speed, grade: grade) * bodyMass * seconds / 3600
    }
}
