import MoonRunnerCore

/// The `battery.*` keys: which gauge, when to warn, when to stop and save.
public struct BatterySettings: Sendable, Equatable {
    /// `auto`, `none`, `power_supply[:FOLDER]`, `i2c:/dev/i2c-1@0x36` or `emulated:MODEL,…`.
    public var source = "auto"
    /// The kernel's power supplies (moved only for tests).
    public var powerSupplyDir = "/sys/class/power_supply"
    /// Seconds between reads of the gauge.
    public var interval = 10.0
    public var warnPercent: [Double] = [20, 10]
    public var criticalPercent = 5.0
    /// When set, the critical level is this cell voltage instead of `criticalPercent`.
    public var criticalVolts: Double?
    /// Seconds the critical level must hold before the session is stopped.
    public var confirm = 30.0
    public var capacityMAh = 2000.0
    /// Ask logind to power off after the critical stop.
    public var powerOff = false
    /// Seconds between the critical stop and the power-off: the announcer says it first.
    public var powerOffDelay = 15.0

    public init() {}

    /// What the core's monitor watches for.
    public var policy: BatteryPolicy {
        var p = BatteryPolicy()
        p.warnLevels = warnPercent
        p.critical = criticalVolts.map { .volts($0) } ?? .percent(criticalPercent)
        p.confirm = confirm
        p.capacityAh = capacityMAh / 1000
        return p
    }
}
