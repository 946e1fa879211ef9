import MoonRunnerCore

/// Register map of the Bosch BMP280 and BME280 (BMP280 datasheet BST-BMP280-DS001
/// §4.2, BME280 BST-BME280-DS002 §5.3; the BME280 adds humidity, which is not used).
public enum BMP280Register {
    /// calib00…calib23: dig_T1…dig_P9, little-endian 16-bit words.
    public static let calibration: UInt8 = 0x88
    public static let calibrationLength = 24
    public static let chipID: UInt8 = 0xD0
    /// Write 0xB6 for a power-on reset.
    public static let reset: UInt8 = 0xE0
    /// BME280 only: humidity oversampling; takes effect at the next write of ctrl_meas.
    public static let ctrlHum: UInt8 = 0xF2
    /// Bit 3 measuring, bit 0 im_update (trim being copied from NVM).
    public static let status: UInt8 = 0xF3
    /// osrs_t[7:5] osrs_p[4:2] mode[1:0].
    public static let ctrlMeas: UInt8 = 0xF4
    /// t_sb[7:5] filter[4:2] spi3w_en[0]; writes in normal mode may be ignored.
    public static let config: UInt8 = 0xF5
    /// press_msb, press_lsb, press_xlsb[7:4], temp_msb, temp_lsb, temp_xlsb[7:4].
    public static let pressMSB: UInt8 = 0xF7

    public static let resetCommand: UInt8 = 0xB6
    /// What a data register holds for a skipped (or not yet made) measurement.
    public static let skipped: UInt32 = 0x80000
    public static let statusMeasuring: UInt8 = 0x08
    public static let statusImUpdate: UInt8 = 0x01
}

/// The settings the driver writes, from the datasheet's "handheld device
/// low-power" use case (BMP280 §3.4 table 7): normal mode, pressure ×16 and
/// temperature ×2 oversampling (ultra high resolution), IIR filter 4, 62.5 ms
/// standby: one reading every 100 ms (10 Hz), 4 cm RMS noise, 247 µA.
///
/// Why that one for a body on the move: the fusion wants the lowest noise
/// (its climb band is a few times the noise), 10 Hz is ten readings per GPS
/// fix to average, and filter 4 reaches 75 % of a step within five readings
/// (0.5 s), so it damps arm swing and gusts without lagging a real climb the
/// way the indoor-navigation setting (filter 16, 22 readings) would.
public struct BMP280Settings: Sendable, Equatable {
    /// Oversampling codes: 0 skip, 1 ×1, 2 ×2, 3 ×4, 4 ×8, 5 ×16.
    public var temperatureOversampling: UInt8 = 2
    public var pressureOversampling: UInt8 = 5
    /// IIR filter code: 0 off, 1 → 2, 2 → 4, 3 → 8, 4 → 16.
    public var filter: UInt8 = 2
    /// Standby code: 0 0.5 ms, 1 62.5 ms, 2 125 ms, 3 250 ms, 4 500 ms, 5 1 s, 6 2 s (BME280: 10 ms), 7 4 s (BME280: 20 ms).
    public var standby: UInt8 = 1

    public init() {}

    /// ctrl_meas for normal mode.
    public var ctrlMeas: UInt8 { temperatureOversampling << 5 | pressureOversampling << 2 | 0b11 }
    public var config: UInt8 { standby << 5 | filter << 2 }

    /// Typical measurement time, s (datasheet §9.1: 1 + 2·osrs_t + 2·osrs_p + 0.5 ms).
    public var measurementTime: Double {
        let t = BMP280Settings.times(temperatureOversampling), p = BMP280Settings.times(pressureOversampling)
        return (1 + 2 * t + (p > 0 ? 2 * p + 0.5 : 0)) / 1000
    }

    /// Standby time, s.
    public func standbyTime(model: BarometerModel) -> Double {
        let bmp280 = [0.0005, 0.0625, 0.125, 0.25, 0.5, 1, 2, 4]
        let bme280 = [0.0005, 0.0625, 0.125, 0.25, 0.5, 1, 0.010, 0.020]
        let table = model == .bme280 ? bme280 : bmp280
        return table[Int(standby & 7)]
    }

    /// Oversampling factor of a code (0 for skipped).
    static func times(_ code: UInt8) -> Double {
        code == 0 ? 0 : Double(1 << min(Int(code) - 1, 4))
    }
}

/// The factory trim of a BMP280/BME280 and the datasheet's compensation
/// (§3.11.3, rev. 1.1 of the code): 32-bit integer temperature first, whose
/// `t_fine` then enters the 64-bit integer pressure formula. Written with
/// wrapping arithmetic, as the C reference behaves, so that a trim garbled by
/// the bus can give a wrong number but never a crash. (Swift ranks `>>` above
/// `*`, so every shift of a product is parenthesised.)
public struct BMP280Calibration: Sendable, Equatable {
    public var t1: UInt16, t2: Int16, t3: Int16
    public var p1: UInt16, p2: Int16, p3: Int16, p4: Int16, p5: Int16, p6: Int16, p7: Int16, p8: Int16, p9: Int16

    public init(t1: UInt16, t2: Int16, t3: Int16, p1: UInt16, p2: Int16, p3: Int16, p4: Int16, p5: Int16,
                p6: Int16, p7: Int16, p8: Int16, p9: Int16) {
        (self.t1, self.t2, self.t3) = (t1, t2, t3)
        (self.p1, self.p2, self.p3, self.p4, self.p5, self.p6, self.p7, self.p8, self.p9) = (p1, p2, p3, p4, p5, p6, p7, p8, p9)
    }

    /// The trim of the datasheet's worked example (dig_T1 = 27504 …).
    public static let datasheetExample = BMP280Calibration(
        t1: 27504, t2: 26435, t3: -1000, p1: 36477, p2: -10685, p3: 3024, p4: 2855, p5: 140, p6: -7,
        p7: 15500, p8: -14600, p9: 6000)

    /// Decodes calib00…calib23 (little-endian words).
    public init(bytes b: UnsafeRawBufferPointer) throws(BaroDriverError) {
        guard b.count >= BMP280Register.calibrationLength else { throw .badCalibration("short read") }
        func u(_ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
        func s(_ i: Int) -> Int16 { Int16(bitPattern: u(i)) }
        self.init(t1: u(0), t2: s(2), t3: s(4), p1: u(6), p2: s(8), p3: s(10), p4: s(12), p5: s(14),
                  p6: s(16), p7: s(18), p8: s(20), p9: s(22))
        if b.prefix(BMP280Register.calibrationLength).allSatisfy({ $0 == 0 }) || b.prefix(BMP280Register.calibrationLength).allSatisfy({ $0 == 0xFF }) {
            throw .badCalibration("all bytes \(I2CError.hex(b[0]))")
        }
        if t1 == 0 || p1 == 0 { throw .badCalibration("dig_T1 or dig_P1 is 0") }
    }

    /// The 24 trim bytes as the device stores them.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        for w in [t1, UInt16(bitPattern: t2), UInt16(bitPattern: t3), p1] + [p2, p3, p4, p5, p6, p7, p8, p9].map({ UInt16(bitPattern: $0) }) {
            out.append(UInt8(w & 0xFF))
            out.append(UInt8(w >> 8))
        }
        return out
    }

    /// bmp280_compensate_T_int32: `t_fine`, and the temperature in 0.01 °C.
    public func temperature(adc adcT: Int32) -> (tFine: Int32, centidegrees: Int32) {
        let adc = Int64(adcT)
        let dT1 = Int64(t1)
        let var1 = (((adc >> 3) &- (dT1 << 1)) &* Int64(t2)) >> 11
        let d = (adc >> 4) &- dT1
        let var2 = (((d &* d) >> 12) &* Int64(t3)) >> 14
        let tFine = Int32(truncatingIfNeeded: var1 &+ var2)
        let t = (Int64(tFine) &* 5 &+ 128) >> 8
        return (tFine, Int32(truncatingIfNeeded: t))
    }

    /// bmp280_compensate_P_int64: pressure in Pa as Q24.8 (value / 256), 0 when the trim makes it undefined.
    public func pressure(adc adcP: Int32, tFine: Int32) -> UInt32 {
        var var1 = Int64(tFine) &- 128_000
        var var2 = var1 &* var1 &* Int64(p6)
        var2 = var2 &+ ((var1 &* Int64(p5)) &<< 17)
        var2 = var2 &+ (Int64(p4) &<< 35)
        var1 = ((var1 &* var1 &* Int64(p3)) >> 8) &+ ((var1 &* Int64(p2)) &<< 12)
        var1 = (((Int64(1) << 47) &+ var1) &* Int64(p1)) >> 33
        guard var1 != 0 else { return 0 }
        var p = 1_048_576 &- Int64(adcP)
        let (q, overflow) = (((p &<< 31) &- var2) &* 3125).dividedReportingOverflow(by: var1)
        guard !overflow else { return 0 }
        p = q
        var1 = (Int64(p9) &* (p >> 13) &* (p >> 13)) >> 25
        var2 = (Int64(p8) &* p) >> 19
        p = ((p &+ var1 &+ var2) >> 8) &+ (Int64(p7) &<< 4)
        return UInt32(truncatingIfNeeded: p)
    }

    /// Pa and °C of a raw pair.
    public func compensate(adcT: UInt32, adcP: UInt32) -> (pressure: Double, temperature: Double) {
        let (tFine, t) = temperature(adc: Int32(bitPattern: adcT))
        let p = pressure(adc: Int32(bitPattern: adcP), tFine: tFine)
        return (Double(p) / 256, Double(t) / 100)
    }
}

/// Driver for the Bosch BMP280 and BME280 over any `I2CBus`: soft reset, trim,
/// `BMP280Settings` in normal mode, burst reads of status, control and data in
/// one transfer (so a device that reset itself is noticed at the next read).
public final class BMP280Driver: BarometerDriver {
    public let bus: any I2CBus
    public let address: UInt8
    public let settings: BMP280Settings
    public let clock: IMUClock
    public private(set) var model: BarometerModel?
    public private(set) var calibration: BMP280Calibration?
    private let expected: BarometerModel?
    private let io: BaroRegisters

    public init(bus: any I2CBus, address: UInt8, expected: BarometerModel? = nil,
                settings: BMP280Settings = BMP280Settings(), clock: IMUClock) {
        self.bus = bus
        self.address = address
        self.expected = expected
        self.settings = settings
        self.clock = clock
        io = BaroRegisters(bus: bus, address: address)
    }

    public var measurementPeriod: Double {
        settings.measurementTime + settings.standbyTime(model: model ?? .bmp280)
    }

    public func initialize() throws(BaroDriverError) {
        model = nil
        calibration = nil
        try io.select()
        let id = try io.read(BMP280Register.chipID)
        guard let found = BarometerModel(chipID: id, at: BMP280Register.chipID), expected.map({ $0 == found }) ?? true else {
            throw .unknownDevice(chipID: id, address: address)
        }
        // Power-on reset, then wait for the trim to be copied from NVM (start-up 2 ms).
        // A chip still starting does not acknowledge: asked again, up to 10 times.
        try io.write(BMP280Register.reset, BMP280Register.resetCommand)
        clock.sleep(0.002)
        var copying = true
        for attempt in 0..<10 where copying {
            do {
                copying = try io.read(BMP280Register.status) & BMP280Register.statusImUpdate != 0
            } catch let error {
                guard case .bus(.nack) = error, attempt < 9 else { throw error }
            }
            if copying { clock.sleep(0.001) }
        }
        try io.readRegisters(BMP280Register.calibration, count: BMP280Register.calibrationLength)
        let trim = try BMP280Calibration(bytes: io.bytes(BMP280Register.calibrationLength))
        if found == .bme280 {
            try io.write(BMP280Register.ctrlHum, 0)   // humidity skipped
        }
        // config first: in normal mode the device may ignore it.
        try io.write(BMP280Register.config, settings.config)
        try io.write(BMP280Register.ctrlMeas, settings.ctrlMeas)
        try io.readRegisters(BMP280Register.ctrlMeas, count: 2)
        if io[0] != settings.ctrlMeas {
            throw .configurationMismatch(register: BMP280Register.ctrlMeas, wrote: settings.ctrlMeas, read: io[0])
        }
        if io[1] & 0xFC != settings.config & 0xFC {
            throw .configurationMismatch(register: BMP280Register.config, wrote: settings.config, read: io[1])
        }
        calibration = trim
        model = found
    }

    public func read() throws(BaroDriverError) -> BaroReading? {
        guard let trim = calibration else { throw .notInitialized }
        // 0xF3 status, 0xF4 ctrl_meas, 0xF5 config, 0xF6 reserved, 0xF7…0xFC data.
        try io.readRegisters(BMP280Register.status, count: 10)
        if io[1] != settings.ctrlMeas { throw .deviceReset }
        let adcP = UInt32(io[4]) << 12 | UInt32(io[5]) << 4 | UInt32(io[6]) >> 4
        let adcT = UInt32(io[7]) << 12 | UInt32(io[8]) << 4 | UInt32(io[9]) >> 4
        if adcP == BMP280Register.skipped || adcT == BMP280Register.skipped { return nil }
        let (p, t) = trim.compensate(adcT: adcT, adcP: adcP)
        return BaroReading(rawPressure: adcP, rawTemperature: adcT, pressure: p, temperature: t)
    }

    public func sleepDevice() {
        calibration = nil
        _ = try? bus.writeRegister(BMP280Register.ctrlMeas, value: settings.ctrlMeas & 0xFC)
    }
}
