import Glibc

/// The charge of a cell whose gauge reports no state of charge of its own
/// (an INA219 on a UPS board; a power_supply driver with only a voltage).
///
/// * With the current: the LiPo curve places the start (the mean over the
///   first `settle` seconds, since one reading under a load spike would
///   misplace it), then every ampere-second out of the cell counts
///   (trapezoids). A charger done with a full cell (`fullVolts`, under
///   `fullCurrent`) re-anchors the count at 100 %.
/// * With the voltage alone: the curve's estimate, smoothed with a time
///   constant of `smoothing` seconds, since each load change moves it.
///
/// Pure: time is the readings'. O(1) state.
public struct ChargeEstimate: Sendable {
    /// Cell capacity, Ah (`battery.capacity_mah`).
    public let capacityAh: Double
    /// Seconds over which the curve's estimates are averaged for the start.
    public static let settle = 60.0
    /// Time constant of the voltage-only estimate, s.
    public static let smoothing = 120.0
    /// A cell at or above this voltage taking less than this current (A) is full: a
    /// CC/CV charger ends the charge at 4.20 V when the current falls to C/10–C/20.
    public static let fullVolts = 4.15
    public static let fullCurrent = 0.05

    private var firstTime = Double.nan
    private var curveSum = 0.0
    private var curveCount = 0
    /// The counted charge, percent; NaN until the start is placed.
    private var counted = Double.nan
    private var lastTime = Double.nan
    private var lastCurrent = Double.nan
    private var smoothed = Double.nan

    public init(capacityAh: Double) {
        self.capacityAh = max(0.01, capacityAh)
    }

    /// The charge after `reading`, percent (NaN while nothing is known).
    public mutating func update(_ r: BatteryReading) -> Double {
        guard r.volts.isFinite else { return .nan }
        let curve = LiPoCurve.percent(volts: r.volts, current: r.current, capacityAh: capacityAh)
        defer {
            lastTime = r.t
            lastCurrent = r.current
        }
        guard r.current.isFinite else { return smooth(curve, at: r.t) }
        if r.volts >= Self.fullVolts && r.current > -Self.fullCurrent && r.current < Self.fullCurrent
            && r.charging == true {
            counted = 100
            return counted
        }
        if counted.isNaN {
            if firstTime.isNaN { firstTime = r.t }
            curveSum += curve
            curveCount += 1
            let mean = curveSum / Double(curveCount)
            if r.t - firstTime >= Self.settle { counted = mean }
            return mean
        }
        if lastTime.isFinite, lastCurrent.isFinite, r.t > lastTime {
            let ampereSeconds = (lastCurrent + r.current) / 2 * (r.t - lastTime)
            counted -= ampereSeconds / (capacityAh * 3600) * 100
        }
        counted = min(max(counted, 0), 100)
        return counted
    }

    private mutating func smooth(_ curve: Double, at t: Double) -> Double {
        guard smoothed.isFinite, lastTime.isFinite, t > lastTime else {
            smoothed = curve
            return smoothed
        }
        let w = 1 - exp(-(t - lastTime) / Self.smoothing)
        smoothed += (curve - smoothed) * w
        return smoothed
    }
}
