import MoonRunnerCore

/// An emulated BMP280 or BME280 (see `BaroEmulator`).
public typealias BMP280Emulator = BaroEmulator<BMP280Chip>

extension BaroEmulator where Chip == BMP280Chip {
    /// A BMP280 (or BME280) at `address` holding the datasheet example's trim,
    /// playing `trace` (nothing: still air at sea level).
    public convenience init(model: BarometerModel = .bmp280, address: UInt8 = 0x76,
                            clock now: @escaping @Sendable () -> Double, trace: [BaroSample] = [], loop: Bool = false,
                            receiverOffset: (@Sendable () -> Double?)? = nil) {
        self.init(chip: model == .bme280 ? .bme280 : .bmp280, address: address, clock: now, trace: trace, loop: loop,
                  receiverOffset: receiverOffset)
    }
}

/// The registers and the measurement of a BMP280/BME280: reset values, chip
/// id, the trim at 0x88, ctrl_meas (oversampling, mode), config (standby,
/// filter; ignored in normal mode), the status bits, the 20-bit data words
/// (0x80000 while a quantity is skipped or before the first measurement),
/// the IIR filter on the ADC words, and normal and forced modes.
///
/// A measurement turns a pressure and temperature into the ADC words that the
/// datasheet's integer compensation maps back onto them (searching the
/// monotonic compensation, so the round trip is exact to one LSB).
public struct BMP280Chip: BaroChip {
    public let model: BarometerModel
    let calibration = BMP280Calibration.datasheetExample
    private var regs = [UInt8](repeating: 0, count: 256)
    private var filteredP = Double.nan
    private var filteredT = Double.nan

    public init(model: BarometerModel, address: UInt8) {
        self.model = model
        for (i, b) in calibration.bytes.enumerated() { regs[Int(BMP280Register.calibration) + i] = b }
        if model == .bme280 { regs[0xA1] = 75 }   // dig_H1, unused
        regs[Int(BMP280Register.chipID)] = model.chipID
        storeData(pressure: BMP280Register.skipped, temperature: BMP280Register.skipped)
    }

    public var identityRegister: UInt8 { BMP280Register.chipID }

    private var mode: UInt8 { regs[Int(BMP280Register.ctrlMeas)] & 0b11 }
    private var osrsT: UInt8 { regs[Int(BMP280Register.ctrlMeas)] >> 5 }
    private var osrsP: UInt8 { (regs[Int(BMP280Register.ctrlMeas)] >> 2) & 0b111 }
    private var filterCode: UInt8 { (regs[Int(BMP280Register.config)] >> 2) & 0b111 }
    private var settings: BMP280Settings {
        var s = BMP280Settings()
        s.temperatureOversampling = min(osrsT, 5)
        s.pressureOversampling = min(osrsP, 5)
        s.standby = regs[Int(BMP280Register.config)] >> 5
        return s
    }

    public var measurementPeriod: Double? {
        switch mode {
        case 0b11: return settings.measurementTime + settings.standbyTime(model: model)
        case 0b01, 0b10: return settings.measurementTime
        default: return nil
        }
    }

    public mutating func read(_ register: UInt8) -> UInt8 {
        regs[Int(register)]
    }

    public mutating func write(_ register: UInt8, _ value: UInt8) -> BaroChipWrite {
        switch register {
        case BMP280Register.reset:
            return value == BMP280Register.resetCommand ? .reset(busy: 0.002) : .none
        case BMP280Register.ctrlMeas:
            regs[Int(register)] = value
            return .restartSchedule
        case BMP280Register.config:
            // "Writes to the config register in normal mode may be ignored."
            guard mode != 0b11 else { return .none }
            regs[Int(register)] = value & 0xFD
            filteredP = .nan   // writing the filter resets it
            filteredT = .nan
            return .none
        case BMP280Register.ctrlHum where model == .bme280:
            regs[Int(register)] = value & 0b111
            return .none
        default:
            return .none   // read-only or reserved
        }
    }

    public mutating func measure(pressure: Double, temperature: Double) {
        let adcT = osrsT == 0 ? nil : BMP280Chip.adcTemperature(for: temperature, calibration)
        let tFine = calibration.temperature(adc: Int32(bitPattern: adcT ?? BMP280Register.skipped)).tFine
        let adcP = osrsP == 0 ? nil : BMP280Chip.adcPressure(for: pressure, tFine: tFine, calibration)
        let rawT = adcT.map { filter(Double($0), &filteredT) } ?? BMP280Register.skipped
        let rawP = adcP.map { filter(Double($0), &filteredP) } ?? BMP280Register.skipped
        storeData(pressure: mask(rawP, osrsP), temperature: mask(rawT, osrsT))
        if mode != 0b11 { regs[Int(BMP280Register.ctrlMeas)] &= 0xFC }   // forced: back to sleep
    }

    public mutating func setRaw(pressure: UInt32, temperature: UInt32) {
        storeData(pressure: pressure, temperature: temperature)
    }

    /// The IIR filter on the ADC words: new = (old·(c − 1) + adc) / c; the
    /// first value after a reset passes unchanged.
    private func filter(_ adc: Double, _ memory: inout Double) -> UInt32 {
        let c = filterCode == 0 ? 1.0 : Double(1 << Int(min(filterCode, 4)))
        memory = memory.isFinite ? (memory * (c - 1) + adc) / c : adc
        return UInt32(min(max(memory.rounded(), 0), 0xFFFFF))
    }

    /// Without the filter the words carry 16 + (osrs − 1) bits.
    private func mask(_ raw: UInt32, _ osrs: UInt8) -> UInt32 {
        guard filterCode == 0, raw != BMP280Register.skipped, osrs > 0 else { return raw }
        let bits = 15 + Int(min(osrs, 5))
        return raw & ~((UInt32(1) << (20 - bits)) - 1)
    }

    private mutating func storeData(pressure: UInt32, temperature: UInt32) {
        let base = Int(BMP280Register.pressMSB)
        for (i, w) in [pressure, temperature].enumerated() {
            regs[base + 3 * i] = UInt8(truncatingIfNeeded: w >> 12)
            regs[base + 3 * i + 1] = UInt8(truncatingIfNeeded: w >> 4)
            regs[base + 3 * i + 2] = UInt8(truncatingIfNeeded: w << 4)
        }
    }

    /// The ADC temperature word whose t_fine is nearest `celsius` (t_fine grows with the word).
    static func adcTemperature(for celsius: Double, _ cal: BMP280Calibration) -> UInt32 {
        let target = (celsius.isFinite ? celsius : 25) * 5120
        return search { Double(cal.temperature(adc: Int32($0)).tFine) - target }
    }

    /// The ADC pressure word whose compensated pressure is nearest `pascal` (it falls as the word grows).
    static func adcPressure(for pascal: Double, tFine: Int32, _ cal: BMP280Calibration) -> UInt32 {
        search { pascal - Double(cal.pressure(adc: Int32($0), tFine: tFine)) / 256 }
    }

    /// The 20-bit word where the increasing function `f` is nearest zero.
    static func search(_ f: (UInt32) -> Double) -> UInt32 {
        var lo: UInt32 = 0, hi: UInt32 = 0xFFFFF
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if f(mid) < 0 { lo = mid } else { hi = mid }
        }
        return abs(f(lo)) <= abs(f(hi)) ? lo : hi
    }
}
