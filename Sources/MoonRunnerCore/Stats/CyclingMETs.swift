/// Energy of a ride without a power meter: the Compendium of Physical
/// Activities (Ainsworth et al. 2011) gives cycling's METs by speed, and
/// 1 MET is 1 kcal per kg per hour: 4.0 below 10 mph (01010 leisure), 6.8
/// from 10 (01020), 8.0 from 12 (01030), 10.0 from 14 (01040 vigorous), 12.0
/// from 16 (01050) and 15.8 from 20 mph (01060 racing).
///
/// Speed alone misjudges hills, so a stretch climbing 4 % or more is at least
/// "vigorous" (10.0): at 5 m/s a 4 % climb takes ~2.9 W/kg at the pedals
/// (gravity 2.0), ~12 W/kg of metabolism at 24 % efficiency, about 10 MET,
/// where speed would say leisure. One descending 3 % or more is freewheeling,
/// the lowest band (4.0), whatever its speed.
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
