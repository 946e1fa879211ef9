import MoonRunnerCore

/// The battery in `STATUS` (since protocol 1.9; null without a gauge).
public struct BatteryStatusReply: Codable, Sendable, Equatable {
    /// The gauge's health: `lost` while it does not answer (the session goes on).
    public var health: SensorHealth
    /// Charge, percent: the gauge's own, or estimated from its voltage and current; null until known.
    @NullCoded public var percent: Double?
    /// Cell voltage, V.
    @NullCoded public var volts: Double?
    /// Current out of the cell, A (negative while charging); null when the gauge does not measure it.
    @NullCoded public var currentA: Double?
    @NullCoded public var charging: Bool?
    /// Minutes until the critical level at the rate of the last minutes; null
    /// while that rate is unknown, the cell charges or holds.
    @NullCoded public var minutesLeft: Double?
    /// Where the critical stop is, as configured: "5 %", "3.30 V".
    public var critical: String
    /// `battery.source` as resolved.
    public var source: String
    /// "MAX17048 at 0x36 on /dev/i2c-1"; null before the gauge was first brought up.
    @NullCoded public var device: String?
    /// Readings taken.
    public var readings: Int
    /// Readings held back as a jump of the gauge.
    public var jumps: Int
    public var busErrors: Int
    public var reinitializations: Int
    @NullCoded public var lastError: String?

    public init(health: SensorHealth, percent: Double? = nil, volts: Double? = nil, currentA: Double? = nil,
                charging: Bool? = nil, minutesLeft: Double? = nil, critical: String, source: String,
                device: String? = nil, readings: Int = 0, jumps: Int = 0, busErrors: Int = 0,
                reinitializations: Int = 0, lastError: String? = nil) {
        self.health = health
        self.percent = percent
        self.volts = volts
        self.currentA = currentA
        self.charging = charging
        self.minutesLeft = minutesLeft
        self.critical = critical
        self.source = source
        self.device = device
        self.readings = readings
        self.jumps = jumps
        self.busErrors = busErrors
        self.reinitializations = reinitializations
        self.lastError = lastError
    }

    enum CodingKeys: String, CodingKey {
        case health, percent, volts, currentA = "current_a", charging, minutesLeft = "minutes_left", critical, source,
             device, readings, jumps, busErrors = "bus_errors", reinitializations, lastError = "last_error"
    }
}
