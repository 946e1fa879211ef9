import MoonRunnerCore

/// An emulated BMP388 or BMP390 (see `BaroEmulator`).
public typealias BMP388Emulator = BaroEmulator<BMP388Chip>

extension BaroEmulator where Chip == BMP388Chip {
    /// A BMP388 (or BMP390) at `address` holding a real device's trim, playing
    /// `trace` (nothing: still air at sea level).
    public convenience init(model: BarometerModel = .bmp388, address: UInt8 = 0x77,
                            clock now: @escaping @Sendable () -> Double, trace: [BaroSample] = [], loop: Bool = false,
                            receiverOffset: (@Sendable () -> Double?)? = nil) {
        self.init(chip: model == .bmp390 ? .bmp390 : .bmp388, address: address, clock: now, trace: trace, loop: loop,
                  receiverOffset: receiverOffset)
    }
}

/// The registers and the measurement of a BMP388/BMP390: chip id at 0x00, the
/// trim at 0x31, PWR_CTRL (enables, mode), OSR, ODR and CONFIG (IIR), the
/// CMD soft reset, STATUS (cmd_rdy; drdy cleared by reading the data),
/// ERR_REG (conf_err when the ODR is faster than the conversion; cleared on
/// read) and 24-bit little-endian data words, 0 before the first measurement.
///
/// A measurement searches the raw words that the datasheet's floating-point
/// compensation maps onto the pressure and temperature felt.
public struct BMP388Chip: BaroChip {
    public let model: BarometerModel
    let calibration = BMP388Calibration.typical
    private var regs = [UInt8](repeating: 0, count: 128)
    private var filteredP = Double.nan
    private var filteredT = Double.nan

    public init(model: BarometerModel, address: UInt8) {
        self.model = model
        for (i, b) in calibration.bytes.enumerated() { regs[Int(BMP388Register.calibration) + i] = b }
        regs[Int(BMP388Register.chipID)] = model.chipID
        regs[Int(BMP388Register.status)] = BMP388Register.statusCmdReady
        regs[Int(BMP388Register.osr)] = 0x02   // reset values: ×4 pressure, ×1 temperature
        regs[Int(BMP388Register.odr)] = 0x00
    }

    public var identityRegister: UInt8 { BMP388Register.chipID }

    private var pwr: UInt8 { regs[Int(BMP388Register.pwrCtrl)] }
    private var settings: BMP388Settings {
        var s = BMP388Settings()
        s.pressureOversampling = regs[Int(BMP388Register.osr)] & 0b111
        s.temperatureOversampling = (regs[Int(BMP388Register.osr)] >> 3) & 0b111
        s.odr = regs[Int(BMP388Register.odr)] & 0x1F
        s.filter = (regs[Int(BMP388Register.config)] >> 1) & 0b111
        return s
    }

    public var measurementPeriod: Double? {
        switch (pwr >> 4) & 0b11 {
        case 0b11: return settings.period
        case 0b01, 0b10: return settings.measurementTime
        default: return nil
        }
    }

    public mutating func read(_ register: UInt8) -> UInt8 {
        let r = Int(register & 0x7F)
        let v = regs[r]
        switch register {
        case BMP388Register.errReg:
            regs[r] = 0
        case BMP388Register.data...(BMP388Register.data + 2):
            regs[Int(BMP388Register.status)] &= ~0x20
        case (BMP388Register.data + 3)...(BMP388Register.data + 5):
            regs[Int(BMP388Register.status)] &= ~0x40
        default:
            break
        }
        return v
    }

    public mutating func write(_ register: UInt8, _ value: UInt8) -> BaroChipWrite {
        switch register {
        case BMP388Register.cmd:
            return value == BMP388Register.softReset ? .reset(busy: 0.002) : .none
        case BMP388Register.pwrCtrl:
            var v = value & 0x33
            if (v >> 4) & 0b11 == 0b11 && settings.measurementTime > settings.period {
                // The device refuses normal mode with an ODR it cannot keep.
                regs[Int(BMP388Register.errReg)] |= BMP388Register.errConf
                v &= 0x03
            }
            regs[Int(register)] = v
            return .restartSchedule
        case BMP388Register.osr:
            regs[Int(register)] = value & 0x3F
            return .none
        case BMP388Register.odr:
            regs[Int(register)] = value & 0x1F
            return .none
        case BMP388Register.config:
            regs[Int(register)] = value & 0x0E
            filteredP = .nan
            filteredT = .nan
            return .none
        default:
            return .none
        }
    }

    public mutating func measure(pressure: Double, temperature: Double) {
        let cal = calibration
        let target = temperature.isFinite ? temperature : 25
        let rawT = BMP388Chip.search { cal.temperature(raw: $0) - target }
        let tLin = cal.temperature(raw: rawT)
        let rising = cal.pressure(raw: 0xFFFFFF, tLin: tLin) > cal.pressure(raw: 0, tLin: tLin)
        let rawP = BMP388Chip.search { (rising ? 1 : -1) * (cal.pressure(raw: $0, tLin: tLin) - pressure) }
        let outP = pwr & 0x01 != 0 ? filter(Double(rawP), &filteredP) : 0
        let outT = pwr & 0x02 != 0 ? filter(Double(rawT), &filteredT) : 0
        store(pressure: outP, temperature: outT)
        regs[Int(BMP388Register.status)] |= 0x60
        if (pwr >> 4) & 0b11 != 0b11 { regs[Int(BMP388Register.pwrCtrl)] &= 0x03 }   // forced: back to sleep
    }

    public mutating func setRaw(pressure: UInt32, temperature: UInt32) {
        store(pressure: pressure, temperature: temperature)
    }

    /// The IIR filter: new = (old·c + adc) / (c + 1), c = 2^code − 1.
    private func filter(_ adc: Double, _ memory: inout Double) -> UInt32 {
        let code = Int(settings.filter)
        let c = Double((1 << code) - 1)
        memory = memory.isFinite ? (memory * c + adc) / (c + 1) : adc
        return UInt32(min(max(memory.rounded(), 0), 0xFFFFFF))
    }

    private mutating func store(pressure: UInt32, temperature: UInt32) {
        let base = Int(BMP388Register.data)
        for (i, w) in [pressure, temperature].enumerated() {
            regs[base + 3 * i] = UInt8(truncatingIfNeeded: w)
            regs[base + 3 * i + 1] = UInt8(truncatingIfNeeded: w >> 8)
            regs[base + 3 * i + 2] = UInt8(truncatingIfNeeded: w >> 16)
        }
    }

    /// The 24-bit word where the increasing function `f` is nearest zero.
    static func search(_ f: (UInt32) -> Double) -> UInt32 {
        var lo: UInt32 = 0, hi: UInt32 = 0xFFFFFF
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if f(mid) < 0 { lo = mid } else { hi = mid }
        }
        return abs(f(lo)) <= abs(f(hi)) ? lo : hi
    }
}
