import MoonRunnerCore

/// Register map of the Texas Instruments INA219 current and power monitor
/// (datasheet SBOS448): 16-bit registers, most significant byte first, at
/// 0x40–0x4F (A0 and A1 strapped).
public enum INA219Register {
    /// RST bit 15, BRNG bit 13, PG bits 12–11, BADC bits 10–7, SADC bits 6–3, MODE bits 2–0 (reset 0x399F).
    public static let configuration: UInt8 = 0x00
    /// Signed, 10 µV per LSB.
    public static let shuntVoltage: UInt8 = 0x01
    /// Bits 15–3 the bus voltage at 4 mV per LSB; bit 1 CNVR (conversion ready), bit 0 OVF (math overflow).
    public static let busVoltage: UInt8 = 0x02
    public static let power: UInt8 = 0x03
    /// Signed, `currentLSB` per LSB once the calibration is written (0 before).
    public static let current: UInt8 = 0x04
    /// trunc(0.04096 / (current LSB × R_shunt)) (datasheet equation 1); bit 0 is always 0.
    public static let calibration: UInt8 = 0x05

    public static let addresses: ClosedRange<UInt8> = 0x40...0x4F
    public static let resetConfiguration: UInt16 = 0x399F
    public static let reset: UInt16 = 0x8000
    /// 16 V bus range (a one-cell LiPo stays under 4.3 V), PGA ÷4 (±160 mV across the
    /// shunt: ±1.6 A through Waveshare's 0.1 Ω, over a Pi Zero 2 W's peaks), both ADCs
    /// averaging 128 conversions (68.1 ms each: the load's ripple averaged away),
    /// continuous shunt and bus: 0x17FF.
    public static let configuration16V160mV128: UInt16 = 0x17FF
    /// A, per current LSB: 100 µA resolves a Pi's draw to a few per mille and gives
    /// Waveshare's own calibration, 4096, with their 0.1 Ω shunt.
    public static let currentLSB = 100e-6
    public static let busVoltsPerLSB = 0.004
    public static let overflowBit: UInt16 = 0x0001
}

/// Driver for an INA219 on a UPS board (Waveshare's UPS HATs: 0x40–0x43,
/// a 0.1 Ω shunt in the cell's lead).
///
/// Bring-up writes the configuration and the calibration and reads both back.
/// A read gives the bus voltage (the cell's, under load) and the current; the
/// charge comes from them in the core (`ChargeEstimate`: the LiPo curve for
/// the start, then coulomb counting). The current's sign is the board's
/// wiring: on Waveshare's boards the INA219 reads negative while the cell
/// feeds the Pi, so `dischargeSign` −1 turns it into the positive discharge the
/// core expects. A calibration register read back as 0 means the chip reset
/// itself (the current reads 0 then): the device is re-initialised.
public final class INA219Driver: BatteryGauge {
    public private(set) var model: GaugeModel?
    private let registers: WordRegisters
    private let path: String
    /// Ω.
    private let shunt: Double
    /// −1: the INA219 reads a discharge as negative current (Waveshare's wiring).
    private let dischargeSign: Double
    private var calibration: UInt16 = 0

    /// A current into the cell beyond this (A) is a charger at work.
    static let chargingCurrent = 0.02

    public init(bus: any I2CBus, address: UInt8, path: String, shuntOhms: Double = 0.1, dischargeSign: Double = -1) {
        registers = WordRegisters(bus: bus, address: address)
        self.path = path
        shunt = shuntOhms
        self.dischargeSign = dischargeSign
    }

    public var label: String { "INA219 at \(I2CError.hex(registers.address)) on \(path)" }

    /// The calibration for a shunt of `ohms` at `INA219Register.currentLSB`.
    static func calibration(shuntOhms ohms: Double) -> UInt16 {
        let value = (0.04096 / (INA219Register.currentLSB * ohms)).rounded(.towardZero)
        return UInt16(min(max(value, 2), 0xFFFE)) & 0xFFFE
    }

    public func initialize() throws(GaugeError) {
        model = nil
        try registers.select()
        let config = INA219Register.configuration16V160mV128
        try registers.write(INA219Register.configuration, config)
        let cal = Self.calibration(shuntOhms: shunt)
        try registers.write(INA219Register.calibration, cal)
        for (register, wrote) in [(INA219Register.configuration, config), (INA219Register.calibration, cal)] {
            let read = try registers.read(register)
            if read != wrote { throw .configurationMismatch(register: register, wrote: wrote, read: read) }
        }
        calibration = cal
        model = .ina219
    }

    public func read() throws(GaugeError) -> GaugeSample {
        guard model != nil else { throw .notInitialized }
        if try registers.read(INA219Register.calibration) != calibration { throw .deviceReset }
        let bus = try registers.read(INA219Register.busVoltage)
        let rawCurrent = try registers.read(INA219Register.current)
        let volts = Double(bus >> 3) * INA219Register.busVoltsPerLSB
        // An overflow leaves the current meaningless; the voltage still holds.
        let overflow = bus & INA219Register.overflowBit != 0
        let current = overflow ? Double.nan
            : Double(Int16(bitPattern: rawCurrent)) * INA219Register.currentLSB * dischargeSign
        return GaugeSample(volts: volts, current: current,
                           charging: current.isFinite ? current < -Self.chargingCurrent : nil,
                           raw: UInt64(bus) << 16 | UInt64(rawCurrent))
    }
}
