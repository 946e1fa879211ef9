/// Energy of walking with a grade, for hikes: Pandolf, Givoni and Goldman
/// (1977), J Appl Physiol 43(4):
///
///     M = 1.5·W + 2.0·(W + L)·(L/W)² + η·(W + L)·(1.5·V² + 0.35·V·G)
///
/// M in W, W body mass and L load in kg, V m/s, G grade in %, η terrain. The
/// ACSM walking equation holds for 0.8–1.7 m/s on a treadmill; a hiker climbs
/// at 0.4–0.9 m/s, and Pandolf's was fitted from standing to 1.97 m/s on
/// grades to 25 % and over terrain. L = 0 (the configuration knows no pack);
/// η = 1.1, "dirt road" (Soule and Goldman 1972), as Santee et al. (2003) used
/// on trails. Descents cost as level (below it the equation goes under the
/// cost of standing); grades beyond 45 % (scrambling) as 45 %. 1 kcal = 4184 J.
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
