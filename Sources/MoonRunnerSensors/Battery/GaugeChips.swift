import MoonRunnerCore

/// An emulated MAX17043 or MAX17048 (see `GaugeEmulator`).
public typealias MAX1704xEmulator = GaugeEmulator<MAX1704xChip>
/// An emulated INA219 on a UPS board (see `GaugeEmulator`).
public typealias INA219Emulator = GaugeEmulator<INA219Chip>

/// A few LSB of noise that depends only on the instant (quarter seconds), so
/// that frozen readings repeat bit for bit and live ones do not.
func gaugeNoise(at t: Double, spread: Int) -> Int {
    guard t.isFinite else { return 0 }
    var x = UInt64(bitPattern: Int64((t * 4).rounded(.down))) &* 0x9E37_79B9_7F4A_7C15
    x ^= x >> 29
    return Int(x % UInt64(2 * spread + 1)) - spread
}

/// The registers of a MAX17043/MAX17048: VCELL and SOC from the cell (the
/// MAX17043's VCELL in 12 bits), CRATE, VERSION, CONFIG with its SLEEP bit (a
/// sleeping gauge holds its last conversion), the MAX17048's STATUS with the
/// reset indicator set at power-up, and the POR command. Bytes auto-increment
/// through the map, two per register. A jumped gauge reports 60 points less
/// charge than the cell has (at least 1 %).
public struct MAX1704xChip: GaugeChip {
    public let model: GaugeModel
    private var config = MAX1704xRegister.resetConfig
    private var status: UInt16
    private var mode: UInt16 = 0
    /// Conversions held while asleep.
    private var held: (vcell: UInt16, soc: UInt16)?

    public init(model: GaugeModel) {
        self.model = model == .max17043 ? .max17043 : .max17048
        status = MAX1704xRegister.statusResetIndicator
    }

    public var identityRegister: UInt8 { MAX1704xRegister.version }

    public func word(at address: UInt8, offset: Int) -> (register: UInt8, high: Bool) {
        let a = address &+ UInt8(truncatingIfNeeded: offset)
        return (a & 0xFE, a & 1 == 0)
    }

    public mutating func read(_ register: UInt8, cell: CellModel, at t: Double, jumped: Bool) -> UInt16 {
        switch register {
        case MAX1704xRegister.vcell: return measured(cell, at: t, jumped: jumped).vcell
        case MAX1704xRegister.soc: return measured(cell, at: t, jumped: jumped).soc
        case MAX1704xRegister.mode: return mode
        case MAX1704xRegister.version: return model == .max17048 ? 0x0012 : 0x0003
        case MAX1704xRegister.config: return config
        case MAX1704xRegister.crate where model == .max17048:
            let rate = -cell.load / cell.capacityAh * 100 / MAX1704xRegister.crateStep
            return UInt16(bitPattern: Int16(min(max(rate.rounded(), -32768), 32767)))
        case MAX1704xRegister.status where model == .max17048: return status
        default: return 0xFFFF
        }
    }

    public mutating func write(_ register: UInt8, _ value: UInt16) {
        switch register {
        case MAX1704xRegister.config:
            config = value
            if value & MAX1704xRegister.configSleep == 0 { held = nil }
        case MAX1704xRegister.mode: mode = 0   // quick-start: nothing the emulation keeps
        case MAX1704xRegister.status where model == .max17048: status = value
        case 0xFE where value == 0x5400: self = MAX1704xChip(model: model)
        default: break
        }
    }

    private mutating func measured(_ cell: CellModel, at t: Double, jumped: Bool) -> (vcell: UInt16, soc: UInt16) {
        if let held { return held }
        let volts = cell.volts(at: t) + Double(gaugeNoise(at: t, spread: 3)) * MAX1704xRegister.microvoltsPerLSB / 1e6
        var vcell = UInt16(min(max((volts * 1e6 / MAX1704xRegister.microvoltsPerLSB).rounded(), 0), 65535))
        if model == .max17043 { vcell &= 0xFFF0 }
        let percent = jumped ? max(1, cell.percent(at: t) - 60) : cell.percent(at: t)
        let soc = UInt16(min(max((percent * 256).rounded(), 0), 65535))
        if config & MAX1704xRegister.configSleep != 0 { held = (vcell, soc) }
        return (vcell, soc)
    }
}

/// The registers of an INA219 measuring a cell through a shunt of
/// `shuntOhms` wired as on Waveshare's boards (the discharge reads negative):
/// the shunt and bus voltages from the cell, the current and power from the
/// calibration (datasheet equations 4 and 5; zero before it is written),
/// CNVR set, OVF beyond the PGA's range, and the reset bit. Each register
/// pointer reads its two bytes. A jumped gauge reads the bus 1 V low.
public struct INA219Chip: GaugeChip {
    public let model: GaugeModel
    /// Ω of the board's shunt.
    public static let shuntOhms = 0.1
    private var configuration = INA219Register.resetConfiguration
    private var calibration: UInt16 = 0

    public init(model: GaugeModel) {
        self.model = .ina219
    }

    public var identityRegister: UInt8 { INA219Register.configuration }

    public func word(at address: UInt8, offset: Int) -> (register: UInt8, high: Bool) {
        (address, offset % 2 == 0)
    }

    /// Full scale across the shunt, V, for the PGA setting (bits 12–11: 40, 80, 160, 320 mV).
    private var shuntRange: Double { 0.04 * Double(1 << Int((configuration >> 11) & 3)) }

    private func shuntRaw(_ cell: CellModel, at t: Double) -> Int {
        let volts = -cell.load * Self.shuntOhms
        let clipped = min(max(volts, -shuntRange), shuntRange)
        return Int((clipped / 10e-6).rounded()) + gaugeNoise(at: t, spread: 1)
    }

    public mutating func read(_ register: UInt8, cell: CellModel, at t: Double, jumped: Bool) -> UInt16 {
        switch register {
        case INA219Register.configuration: return configuration
        case INA219Register.calibration: return calibration
        case INA219Register.shuntVoltage: return UInt16(bitPattern: Int16(clamping: shuntRaw(cell, at: t)))
        case INA219Register.busVoltage:
            let volts = cell.volts(at: t) - (jumped ? 1 : 0)
            let overflow = abs(cell.load * Self.shuntOhms) > shuntRange
            let raw = UInt16(min(max((volts / INA219Register.busVoltsPerLSB).rounded(), 0), 8191))
            return raw << 3 | 0x0002 | (overflow ? INA219Register.overflowBit : 0)
        case INA219Register.current:
            return UInt16(bitPattern: Int16(clamping: shuntRaw(cell, at: t) * Int(calibration) / 4096))
        case INA219Register.power:
            let current = shuntRaw(cell, at: t) * Int(calibration) / 4096
            let bus = Int((cell.volts(at: t) / INA219Register.busVoltsPerLSB).rounded())
            return UInt16(clamping: abs(current) * bus / 5000)
        default: return 0
        }
    }

    public mutating func write(_ register: UInt8, _ value: UInt16) {
        switch register {
        case INA219Register.configuration:
            if value & INA219Register.reset != 0 {
                self = INA219Chip(model: model)
            } else {
                configuration = value
            }
        case INA219Register.calibration: calibration = value & 0xFFFE
        default: break
        }
    }
}
