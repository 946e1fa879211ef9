/// One reading of the battery gauge, as its sensor service hands it over.
///
/// Gauges tell different things: a MAX17043/48 the cell voltage and its own
/// state of charge, an INA219 the voltage and the current (the charge is
/// estimated from them, `ChargeEstimate`), the kernel's power_supply class
/// whatever its driver knows. What a gauge does not tell is NaN (nil for
/// `charging`). A plain value with no references.
public struct BatteryReading: Sendable, Equatable {
    /// Reading instant, engine clock, s.
    public var t: Double
    /// State of charge as the gauge reports it, percent (0–100).
    public var percent: Double
    /// Cell voltage, V.
    public var volts: Double
    /// Current out of the cell, A: positive while discharging, negative while charging.
    public var current: Double
    /// The charger feeds the cell (the gauge or its driver says so).
    public var charging: Bool?

    public init(t: Double, percent: Double = .nan, volts: Double = .nan, current: Double = .nan,
                charging: Bool? = nil) {
        self.t = t
        self.percent = percent
        self.volts = volts
        self.current = current
        self.charging = charging
    }

    /// Whether the reading says anything about the charge: a percentage, or a
    /// voltage a LiPo cell can have (2.5–4.5 V: below is a cell destroyed or a
    /// gauge misread, above a cell no charger makes).
    public var isPlausible: Bool {
        guard t.isFinite else { return false }
        let percentOK = percent.isFinite && (0...100).contains(percent)
        return percentOK || (volts.isFinite && (2.5...4.5).contains(volts))
    }
}

/// When the charge is too low to go on: a percentage of charge, or a cell
/// voltage under load (what a UPS board's own cut-off watches).
public enum BatteryCriticalLevel: Sendable, Equatable, CustomStringConvertible {
    case percent(Double)
    case volts(Double)

    public var description: String {
        switch self {
        case let .percent(p): "\(p.fixed(0)) %"
        case let .volts(v): "\(v.fixed(2)) V"
        }
    }
}
