import MoonRunnerCore

/// Register map of the Maxim fuel gauges MAX17043/MAX17044 and MAX17048/MAX17049
/// (datasheets 19-4681 and 19-6171): 16-bit registers, most significant byte first,
/// at I²C address 0x36.
public enum MAX1704xRegister {
    /// Cell voltage, 78.125 µV per LSB on the MAX17048; the MAX17043 keeps a 12-bit
    /// reading of 1.25 mV in the top 12 bits, which is the same scale.
    public static let vcell: UInt8 = 0x02
    /// State of charge, 1/256 % per LSB (the high byte is whole percent).
    public static let soc: UInt8 = 0x04
    /// Write `quickStart` to restart the estimate from the voltage.
    public static let mode: UInt8 = 0x06
    /// Production version: 0x001_ on the MAX17048/49, 0x000_ on the MAX17043/44.
    public static let version: UInt8 = 0x08
    /// RCOMP in the high byte (reset 0x97); SLEEP is bit 7 of the low byte, ALRT bit 5,
    /// ATHD bits 4–0 (alert at 32 − ATHD %; reset 0x1C).
    public static let config: UInt8 = 0x0C
    /// MAX17048 only: the charge rate, 0.208 %/h per LSB, signed (negative discharging).
    public static let crate: UInt8 = 0x16
    /// MAX17048 only: RI (reset indicator) is bit 0 of the high byte, set by a power-on reset.
    public static let status: UInt8 = 0x1A

    public static let address: UInt8 = 0x36
    public static let quickStart: UInt16 = 0x4000
    public static let resetConfig: UInt16 = 0x971C
    public static let configSleep: UInt16 = 0x0080
    public static let statusResetIndicator: UInt16 = 0x0100
    /// µV per VCELL LSB.
    public static let microvoltsPerLSB = 78.125
    /// %/h per CRATE LSB.
    public static let crateStep = 0.208
}

/// Driver for the MAX17043/MAX17048 over any `I2CBus`.
///
/// The gauge runs its own model of the cell (ModelGauge) and needs nothing
/// but to be awake: bring-up reads the version to know the part, wakes a
/// gauge left asleep (SLEEP in CONFIG stops its conversions) and clears the
/// MAX17048's reset indicator, so that a later reset can be seen: a gauge
/// that reset itself restarts its estimate from the voltage and is
/// re-initialised. Reads are VCELL and SOC (and the MAX17048's CRATE, whose
/// sign says charging when it is clearly away from zero). Nothing is written
/// in normal use; a quick-start would throw the gauge's learning away.
public final class MAX1704xDriver: BatteryGauge {
    public private(set) var model: GaugeModel?
    private let registers: WordRegisters
    private let path: String

    /// |CRATE| beyond this (%/h) says which way the charge goes: a Pi Zero
    /// draws 10–40 %/h from a 2000 mAh cell, a charger adds 20–50 %/h; a few
    /// %/h either side is the gauge's noise at rest.
    static let chargingRate = 2.0

    public init(bus: any I2CBus, address: UInt8 = MAX1704xRegister.address, path: String) {
        registers = WordRegisters(bus: bus, address: address)
        self.path = path
    }

    public var label: String {
        "\(model.map { "\($0)" } ?? "MAX1704x") at \(I2CError.hex(registers.address)) on \(path)"
    }

    public func initialize() throws(GaugeError) {
        model = nil
        try registers.select()
        let version = try registers.read(MAX1704xRegister.version)
        let found: GaugeModel
        switch version & 0xFFF0 {
        case 0x0010: found = .max17048
        case 0x0000 where version != 0: found = .max17043
        default:
            throw .unknownDevice("device at \(I2CError.hex(registers.address)) answered version "
                                 + "\(GaugeError.hex16(version)); a MAX17043 reads 0x000_, a MAX17048 0x001_")
        }
        let config = try registers.read(MAX1704xRegister.config)
        if config & MAX1704xRegister.configSleep != 0 {
            let awake = config & ~MAX1704xRegister.configSleep
            try registers.write(MAX1704xRegister.config, awake)
            let back = try registers.read(MAX1704xRegister.config)
            if back != awake { throw .configurationMismatch(register: MAX1704xRegister.config, wrote: awake, read: back) }
        }
        if found == .max17048 {
            let status = try registers.read(MAX1704xRegister.status)
            if status & MAX1704xRegister.statusResetIndicator != 0 {
                try registers.write(MAX1704xRegister.status, status & ~MAX1704xRegister.statusResetIndicator)
            }
        }
        model = found
    }

    public func read() throws(GaugeError) -> GaugeSample {
        guard let model else { throw .notInitialized }
        let vcell = try registers.read(MAX1704xRegister.vcell)
        let soc = try registers.read(MAX1704xRegister.soc)
        var charging: Bool?
        var crate: UInt16 = 0
        if model == .max17048 {
            if try registers.read(MAX1704xRegister.status) & MAX1704xRegister.statusResetIndicator != 0 {
                throw .deviceReset
            }
            crate = try registers.read(MAX1704xRegister.crate)
            let rate = Double(Int16(bitPattern: crate)) * MAX1704xRegister.crateStep
            if abs(rate) > Self.chargingRate { charging = rate > 0 }
        }
        // A gauge not yet calibrated to its cell may report over 100 %.
        let percent = min(Double(soc) / 256, 100)
        let volts = Double(vcell) * MAX1704xRegister.microvoltsPerLSB / 1e6
        return GaugeSample(percent: percent, volts: volts, charging: charging,
                           raw: UInt64(vcell) << 32 | UInt64(soc) << 16 | UInt64(crate))
    }
}
