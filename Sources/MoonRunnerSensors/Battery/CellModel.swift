import MoonRunnerCore

/// A one-cell LiPo draining under a steady load, for the emulated gauges: the
/// charge falls by the load's share of the capacity every second, and the
/// terminal voltage is the LiPo curve's at that charge, sagging by the load
/// through the cell's internal resistance (`LiPoCurve`), so that the
/// voltage-based estimate of an INA219 and a MAX17048's own charge tell the
/// same story. Pure: time is an argument.
public struct CellModel: Sendable, Equatable {
    /// Ah.
    public var capacityAh: Double
    /// A out of the cell (negative: charging).
    public var load: Double
    /// Percent at `start`.
    public var startPercent: Double
    /// Time at which the cell had `startPercent`; nil until the emulated gauge is first read.
    public var start: Double?

    public init(capacityAh: Double = 2, load: Double = 0.8, startPercent: Double = 80) {
        self.capacityAh = capacityAh
        self.load = load
        self.startPercent = startPercent
    }

    /// The charge at `t`, percent (0–100).
    public func percent(at t: Double) -> Double {
        let elapsed = max(0, t - (start ?? t))
        let p = startPercent - load * elapsed / (capacityAh * 3600) * 100
        return min(max(p, 0), 100)
    }

    /// The terminal voltage at `t` under the load, V.
    public func volts(at t: Double) -> Double {
        let atTableRate = LiPoCurve.volts(atPercent: percent(at: t))
        return atTableRate - (load - LiPoCurve.tableRate * capacityAh) * LiPoCurve.internalResistance
    }
}
