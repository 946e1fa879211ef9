import MoonRunnerCore

/// The battery gauges the daemon reads.
public enum GaugeModel: String, Sendable, CaseIterable, CustomStringConvertible {
    case max17043 = "MAX17043"
    case max17048 = "MAX17048"
    case ina219 = "INA219"
    /// The kernel's power_supply class (any gauge with a Linux driver).
    case powerSupply = "power_supply"

    public var description: String { rawValue }
}

/// Why a gauge could not be brought up or read.
public enum GaugeError: Error, Equatable, Sendable, CustomStringConvertible {
    case bus(I2CError)
    /// Something answered at the address but not as the gauge would.
    case unknownDevice(String)
    /// A configuration register did not read back what was written.
    case configurationMismatch(register: UInt8, wrote: UInt16, read: UInt16)
    /// The gauge lost its configuration (a brown-out reset it).
    case deviceReset
    /// A power_supply file is missing or unreadable, or holds no number.
    case file(String)
    /// The gauge reports no battery (power_supply `present` 0).
    case noBattery
    case notInitialized

    public var description: String {
        switch self {
        case let .bus(e): return e.description
        case let .unknownDevice(why): return why
        case let .configurationMismatch(reg, wrote, read):
            return "register \(I2CError.hex(reg)) reads back \(GaugeError.hex16(read)) after writing \(GaugeError.hex16(wrote))"
        case .deviceReset: return "the gauge lost its configuration (reset or brown-out)"
        case let .file(why): return why
        case .noBattery: return "the power supply reports no battery present"
        case .notInitialized: return "battery gauge not initialised"
        }
    }

    static func hex16(_ v: UInt16) -> String { "0x" + v.hex(width: 4, uppercase: true) }
}

extension GaugeError: BusDriverError {
    var busError: I2CError? { if case let .bus(e) = self { e } else { nil } }
}

/// One measurement of a gauge: what it says of the cell, and its raw words
/// (a gauge that converts keeps changing them; the same words for minutes
/// mean it stopped).
public struct GaugeSample: Sendable, Equatable {
    /// Percent (the gauge's own state of charge); NaN when it has none.
    public var percent: Double
    /// V.
    public var volts: Double
    /// A, positive discharging; NaN when not measured.
    public var current: Double
    public var charging: Bool?
    /// The raw register words (or file values) the sample came from.
    public var raw: UInt64

    public init(percent: Double = .nan, volts: Double = .nan, current: Double = .nan, charging: Bool? = nil,
                raw: UInt64 = 0) {
        self.percent = percent
        self.volts = volts
        self.current = current
        self.charging = charging
        self.raw = raw
    }

    /// The reading the engine takes, stamped `t`.
    public func reading(at t: Double) -> BatteryReading {
        BatteryReading(t: t, percent: percent, volts: volts, current: current, charging: charging)
    }
}

/// A battery gauge driver: bring-up and reads. Not thread-safe: one driver
/// belongs to one thread (the battery service's).
public protocol BatteryGauge: AnyObject {
    /// Known after `initialize()`.
    var model: GaugeModel? { get }
    /// Where it is, for `STATUS.battery.device`: "MAX17048 at 0x36 on /dev/i2c-1".
    var label: String { get }
    func initialize() throws(GaugeError)
    func read() throws(GaugeError) -> GaugeSample
}

/// 16-bit registers, most significant byte first, as the MAX1704x and the
/// INA219 have them; every `I2CError` wrapped as the gauge's error.
struct WordRegisters {
    let bus: any I2CBus
    let address: UInt8

    func select() throws(GaugeError) {
        do { try bus.select(address: address) } catch { throw .bus(error) }
    }

    func read(_ register: UInt8) throws(GaugeError) -> UInt16 {
        var bytes: (UInt8, UInt8) = (0, 0)
        do {
            try withUnsafeMutableBytes(of: &bytes) { (raw) throws(I2CError) in try bus.readRegisters(register, into: raw) }
        } catch { throw .bus(error) }
        return UInt16(bytes.0) << 8 | UInt16(bytes.1)
    }

    func write(_ register: UInt8, _ value: UInt16) throws(GaugeError) {
        var bytes = (UInt8(value >> 8), UInt8(value & 0xFF))
        do {
            try withUnsafeBytes(of: &bytes) { (raw) throws(I2CError) in try bus.writeRegisters(register, bytes: raw) }
        } catch { throw .bus(error) }
    }
}
