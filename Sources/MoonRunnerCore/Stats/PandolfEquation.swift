/// Energy of walking with a grade, for hikes: Pandolf, Givoni and Goldman
/// (1977), "Predicting energy expenditure with loads while standing or
/// walking very slowly", J Appl Physiol 43(4):
///
///     M = 1.5·W + 2.0·(W + L)·(L/W)² + η·(W + L)·(1.5·V² + 0.35·V·G)
///
/// M in watts, W body mass and L load in kg, V speed in m/s, G grade in
/// percent, η the terrain factor. Why this and not the ACSM walking equation
/// the walks use: ACSM's is stated for 50–100 m/min (0.8–1.7 m/s) on a
/// treadmill, and a hiker climbs at 0.4–0.9 m/s; Pandolf's was fitted from
/// standing still up to 1.97 m/s, on grades to 25 % and over terrain, which is
/// a hike's range (at 0.6 m/s on 25 % the two agree within 5 %: 474 and 489
/// kcal/h for 70 kg; on the level at 0.5 m/s ACSM's falls to its resting
/// floor's range while Pandolf's keeps the cost of standing, 1.5 W/kg).
///
/// * No load (L = 0): the configuration knows the body mass, not the pack.
/// * η = 1.1, "dirt road" in Soule and Goldman's (1972) terrain table, the
///   factor Santee et al. (2003) used to check the equation on trails.
/// * Descents cost as level walking (G clamped at 0): the equation goes below
///   the cost of standing on them; Santee's downhill correction would need
///   the eccentric work, which a 1 Hz track does not tell. Grades beyond 45 %
///   (scrambling, no longer walking) cost as 45 %.
/// * Watts to kcal: 1 kcal = 4184 J.
public struct PandolfEquation: Sendable, Equatable {
    /// Body mass, kg.
    public var bodyMass: Double
    /// Pack mass, kg.
    public var load: Double = 0
    /// Terrain factor (1.0 paved, 1.1 dirt road, 1.2 light brush, 1.5 heavy brush).
    public var terrain: Double = 1.1

    public init(bodyMass: Double) {
        self.bodyMass = bodyMass
    }

    /// Metabolic rate, W, at `speed` m/s on `grade` (a fraction: 0.25 is 25 %).
    public func watts(speed: Double, grade: Double) -> Double {
        let w = bodyMass, l = load
        let v = max(0, speed.isFinite ? speed : 0)
        let g = 100 * min(0.45, max(0, grade.isFinite ? grade : 0))
        return 1.5 * w + 2.0 * (w + l) * (l / w) * (l / w) + terrain * (w + l) * (1.5 * v * v + 0.35 * v * g)
    }

    /// kcal spent moving for `seconds` at `speed` m/s on `grade`.
    public func kcal(speed: Double, grade: Double, seconds: Double) -> Double {
        guard seconds > 0, bodyMass > 0 else { return 0 }
        return watts(speed: speed, grade: grade) * seconds / 4184
    }
}
