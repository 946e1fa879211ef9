/// A one-cell lithium-polymer battery's charge from its voltage under load.
///
/// The table: a LiCoO₂ pouch cell (the 1000–3000 mAh cells of Pi UPS boards)
/// discharged at 0.2 C at room temperature, as its makers publish it: 4.15 V
/// full, a plateau around 3.7–3.8 V, the knee below 3.6 V, 3.30 V empty.
/// Another current shifts the curve by `internalResistance` (0.1 Ω: cell,
/// protection FETs and wiring), so the voltage is first brought back to 0.2 C.
/// Coarse on the plateau (20 mV is 10 % there), good near the knee, where it
/// matters; a gauge that counts charge uses it only for its start. Pure.
public enum LiPoCurve {
    /// (percent, volts at 0.2 C), by falling charge.
    public static let points: [(percent: Double, volts: Double)] = [
        (100, 4.15), (95, 4.08), (90, 4.02), (80, 3.94), (70, 3.87), (60, 3.82), (50, 3.78),
        (40, 3.75), (30, 3.72), (20, 3.69), (15, 3.66), (10, 3.62), (5, 3.52), (0, 3.30),
    ]

    /// Ω: the cell's and the board's resistance (see the type's comment).
    public static let internalResistance = 0.1

    /// The discharge rate the table was taken at, as a fraction of the capacity per hour.
    public static let tableRate = 0.2

    /// The charge (percent, 0–100) of a cell of `capacityAh` reading `volts`
    /// while `current` A flows out of it (NaN: the table's own 0.2 C).
    public static func percent(volts: Double, current: Double = .nan, capacityAh: Double) -> Double {
        guard volts.isFinite else { return .nan }
        let load = current.isFinite ? current : tableRate * capacityAh
        let atTableRate = volts + (load - tableRate * capacityAh) * internalResistance
        let p = points
        if atTableRate >= p[0].volts { return 100 }
        for i in 1..<p.count where atTableRate >= p[i].volts {
            let (hi, lo) = (p[i - 1], p[i])
            return lo.percent + (atTableRate - lo.volts) / (hi.volts - lo.volts) * (hi.percent - lo.percent)
        }
        return 0
    }

    /// The voltage under 0.2 C at `percent` (the inverse of `percent(volts:)`),
    /// so that a critical level given in volts can be placed on the charge.
    public static func volts(atPercent percent: Double) -> Double {
        let p = points
        let clamped = min(max(percent, 0), 100)
        for i in 1..<p.count where clamped >= p[i].percent {
            let (hi, lo) = (p[i - 1], p[i])
            return lo.volts + (clamped - lo.percent) / (hi.percent - lo.percent) * (hi.volts - lo.volts)
        }
        return p[p.count - 1].volts
    }
}
