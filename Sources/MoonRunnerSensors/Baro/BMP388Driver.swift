import MoonRunnerCore

/// Register map of the Bosch BMP388 and BMP390 (BMP388 datasheet BST-BMP388-DS001
/// §4, BMP390 BST-BMP390-DS002; the same map and compensation).
public enum BMP388Register {
    public static let chipID: UInt8 = 0x00
    /// fatal_err[0] cmd_err[1] conf_err[2].
    public static let errReg: UInt8 = 0x02
    /// cmd_rdy[4] drdy_press[5] drdy_temp[6].
    public static let status: UInt8 = 0x03
    /// DATA_0…DATA_5: pressure then temperature, 24-bit little-endian each.
    public static let data: UInt8 = 0x04
    /// press_en[0] temp_en[1] mode[5:4] (0 sleep, 1/2 forced, 3 normal).
    public static let pwrCtrl: UInt8 = 0x1B
    /// osr_p[2:0] osr_t[5:3]: 0 ×1 … 5 ×32.
    public static let osr: UInt8 = 0x1C
    /// odr_sel[4:0]: 200 Hz / 2^odr_sel.
    public static let odr: UInt8 = 0x1D
    /// iir_filter[3:1]: coefficient 0, 1, 3, 7, 15, 31, 63, 127.
    public static let config: UInt8 = 0x1F
    /// NVM_PAR_T1 … NVM_PAR_P11, 21 bytes.
    public static let calibration: UInt8 = 0x31
    public static let calibrationLength = 21
    /// Write 0xB6 for a soft reset.
    public static let cmd: UInt8 = 0x7E

    public static let softReset: UInt8 = 0xB6
    public static let statusCmdReady: UInt8 = 0x10
    public static let errConf: UInt8 = 0x04
}

/// The settings the driver writes: the same choice as the BMP280's (the
/// "handheld device low-power" use case): normal mode, pressure ×16 and
/// temperature ×2 oversampling, IIR coefficient 3 (the BMP3's equivalent of
/// the BMP280's filter 4: each output is 3/4 the old one plus 1/4 the new),
/// 12.5 Hz (80 ms, above the 37 ms the oversampling needs, below the 10 Hz
/// of the BMP280 setting's noise budget).
public struct BMP388Settings: Sendable, Equatable {
    /// Oversampling codes: 0 ×1 … 5 ×32.
    public var pressureOversampling: UInt8 = 4
    public var temperatureOversampling: UInt8 = 1
    /// iir_filter code: 0 off, 1 → 1, 2 → 3, 3 → 7, 4 → 15 …
    public var filter: UInt8 = 2
    /// odr_sel: 200 Hz / 2^code; 4 is 12.5 Hz.
    public var odr: UInt8 = 4

    public init() {}

    public var pwrCtrl: UInt8 { 0b11 << 4 | 0b11 }
    public var osr: UInt8 { temperatureOversampling << 3 | pressureOversampling }
    public var config: UInt8 { filter << 1 }
    /// Seconds between two measurements.
    public var period: Double { Double(1 << Int(min(odr, 17))) / 200 }

    /// Conversion time, s (datasheet §3.9.2): 234 µs + 392 + 2^osr_p·2020 + 163 + 2^osr_t·2020 µs.
    public var measurementTime: Double {
        (234 + 392 + Double(1 << Int(min(pressureOversampling, 5))) * 2020
            + 163 + Double(1 << Int(min(temperatureOversampling, 5))) * 2020) * 1e-6
    }
}

/// The factory trim of a BMP388/BMP390 and the datasheet's floating-point
/// compensation (§9.2, as in Bosch's BMP3 API): the raw NVM words scaled by
/// powers of two, temperature (t_lin) first, then pressure as a cubic in the
/// raw pressure whose coefficients depend on t_lin.
public struct BMP388Calibration: Sendable, Equatable {
    /// NVM_PAR_T1…T3, P1…P11 as stored.
    public var t1: UInt16, t2: UInt16, t3: Int8
    public var p1: Int16, p2: Int16, p3: Int8, p4: Int8, p5: UInt16, p6: UInt16, p7: Int8, p8: Int8
    public var p9: Int16, p10: Int8, p11: Int8

    /// A real device's trim (21 bytes from 0x31).
    public static let typical: BMP388Calibration = {
        let bytes: [UInt8] = [0xD2, 0x69, 0x62, 0x49, 0xF6, 0x92, 0xFE, 0x1E, 0xF5, 0x23, 0x00,
                              0x7F, 0x65, 0xE7, 0x7B, 0xF3, 0xF6, 0x7B, 0x42, 0x0A, 0xC4]
        return bytes.withUnsafeBytes { (b) -> BMP388Calibration in
            (try? BMP388Calibration(bytes: b)) ?? BMP388Calibration(raw: b)
        }
    }()

    /// Decodes NVM_PAR_T1 … NVM_PAR_P11.
    public init(bytes b: UnsafeRawBufferPointer) throws(BaroDriverError) {
        guard b.count >= BMP388Register.calibrationLength else { throw .badCalibration("short read") }
        self.init(raw: b)
        let trim = b.prefix(BMP388Register.calibrationLength)
        if trim.allSatisfy({ $0 == 0 }) || trim.allSatisfy({ $0 == 0xFF }) {
            throw .badCalibration("all bytes \(I2CError.hex(b[0]))")
        }
        if t1 == 0 || t2 == 0 { throw .badCalibration("NVM_PAR_T1 or NVM_PAR_T2 is 0") }
    }

    private init(raw b: UnsafeRawBufferPointer) {
        func u(_ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
        func s8(_ i: Int) -> Int8 { Int8(bitPattern: b[i]) }
        t1 = u(0); t2 = u(2); t3 = s8(4)
        p1 = Int16(bitPattern: u(5)); p2 = Int16(bitPattern: u(7)); p3 = s8(9); p4 = s8(10)
        p5 = u(11); p6 = u(13); p7 = s8(15); p8 = s8(16); p9 = Int16(bitPattern: u(17)); p10 = s8(19); p11 = s8(20)
    }

    /// The 21 trim bytes as the device stores them. (Written field by field: as one
    /// chain of `+` Swift 6.2's type checker gives up on it.)
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(21)
        func le(_ w: UInt16) { out += [UInt8(w & 0xFF), UInt8(w >> 8)] }
        func s8(_ v: Int8) { out.append(UInt8(bitPattern: v)) }
        le(t1); le(t2); s8(t3); le(UInt16(bitPattern: p1)); le(UInt16(bitPattern: p2))
        s8(p3); s8(p4); le(p5); le(p6)
        s8(p7); s8(p8); le(UInt16(bitPattern: p9))
        s8(p10); s8(p11)
        return out
    }

    /// Temperature in °C (t_lin) of a raw temperature.
    public func temperature(raw: UInt32) -> Double {
        let parT1 = Double(t1) * 256             // / 2^-8
        let parT2 = Double(t2) / 1_073_741_824   // / 2^30
        let parT3 = Double(t3) / 281_474_976_710_656  // / 2^48
        let d1 = Double(raw) - parT1
        return d1 * parT2 + d1 * d1 * parT3
    }

    /// Pressure in Pa of a raw pressure at temperature `tLin` °C.
    public func pressure(raw: UInt32, tLin: Double) -> Double {
        let parP1 = (Double(p1) - 16_384) / 1_048_576           // 2^14, 2^20
        let parP2 = (Double(p2) - 16_384) / 536_870_912         // 2^14, 2^29
        let parP3 = Double(p3) / 4_294_967_296                  // 2^32
        let parP4 = Double(p4) / 137_438_953_472                // 2^37
        let parP5 = Double(p5) * 8                              // / 2^-3
        let parP6 = Double(p6) / 64                             // 2^6
        let parP7 = Double(p7) / 256                            // 2^8
        let parP8 = Double(p8) / 32_768                         // 2^15
        let parP9 = Double(p9) / 281_474_976_710_656            // 2^48
        let parP10 = Double(p10) / 281_474_976_710_656          // 2^48
        let parP11 = Double(p11) / 36_893_488_147_419_103_232   // 2^65
        let t = tLin, t2 = t * t, t3 = t2 * t
        let out1 = parP5 + parP6 * t + parP7 * t2 + parP8 * t3
        let up = Double(raw)
        let out2 = up * (parP1 + parP2 * t + parP3 * t2 + parP4 * t3)
        let up2 = up * up
        let out3 = up2 * (parP9 + parP10 * t) + up2 * up * parP11
        return out1 + out2 + out3
    }

    public func compensate(rawTemperature: UInt32, rawPressure: UInt32) -> (pressure: Double, temperature: Double) {
        let t = temperature(raw: rawTemperature)
        return (pressure(raw: rawPressure, tLin: t), t)
    }
}

/// Driver for the Bosch BMP388 and BMP390 over any `I2CBus`: soft reset
/// (CMD), trim, `BMP388Settings` in normal mode, burst reads of error,
/// status and data in one transfer.
public final class BMP388Driver: BarometerDriver {
    public let bus: any I2CBus
    public let address: UInt8
    public let settings: BMP388Settings
    public let clock: IMUClock
    public private(set) var model: BarometerModel?
    public private(set) var calibration: BMP388Calibration?
    private let expected: BarometerModel?
    private let io: BaroRegisters

    public init(bus: any I2CBus, address: UInt8, expected: BarometerModel? = nil,
                settings: BMP388Settings = BMP388Settings(), clock: IMUClock) {
        self.bus = bus
        self.address = address
        self.expected = expected
        self.settings = settings
        self.clock = clock
        io = BaroRegisters(bus: bus, address: address)
    }

    public var measurementPeriod: Double { settings.period }

    public func initialize() throws(BaroDriverError) {
        model = nil
        calibration = nil
        try io.select()
        let id = try io.read(BMP388Register.chipID)
        guard let found = BarometerModel(chipID: id, at: BMP388Register.chipID), expected.map({ $0 == found }) ?? true else {
            throw .unknownDevice(chipID: id, address: address)
        }
        try io.write(BMP388Register.cmd, BMP388Register.softReset)
        clock.sleep(0.002)
        try io.readRegisters(BMP388Register.calibration, count: BMP388Register.calibrationLength)
        let trim = try BMP388Calibration(bytes: io.bytes(BMP388Register.calibrationLength))
        try io.write(BMP388Register.osr, settings.osr)
        try io.write(BMP388Register.odr, settings.odr)
        try io.write(BMP388Register.config, settings.config)
        try io.write(BMP388Register.pwrCtrl, settings.pwrCtrl)
        // A combination the device cannot run (ODR faster than the conversion) sets conf_err.
        let err = try io.read(BMP388Register.errReg)
        if err != 0 { throw .deviceError(err) }
        try io.readRegisters(BMP388Register.pwrCtrl, count: 3)
        let wrote = [settings.pwrCtrl, settings.osr, settings.odr]
        for (i, want) in wrote.enumerated() where io[i] != want {
            throw .configurationMismatch(register: BMP388Register.pwrCtrl + UInt8(i), wrote: want, read: io[i])
        }
        calibration = trim
        model = found
    }

    public func read() throws(BaroDriverError) -> BaroReading? {
        guard let trim = calibration else { throw .notInitialized }
        // 0x02 ERR_REG, 0x03 STATUS, 0x04…0x09 data.
        try io.readRegisters(BMP388Register.errReg, count: 8)
        if io[0] & 0x03 != 0 { throw .deviceError(io[0]) }
        let p = UInt32(io[2]) | UInt32(io[3]) << 8 | UInt32(io[4]) << 16
        let t = UInt32(io[5]) | UInt32(io[6]) << 8 | UInt32(io[7]) << 16
        if try io.read(BMP388Register.pwrCtrl) != settings.pwrCtrl { throw .deviceReset }
        if p == 0 || t == 0 { return nil }
        let (pressure, temperature) = trim.compensate(rawTemperature: t, rawPressure: p)
        return BaroReading(rawPressure: p, rawTemperature: t, pressure: pressure, temperature: temperature)
    }

    public func sleepDevice() {
        calibration = nil
        _ = try? bus.writeRegister(BMP388Register.pwrCtrl, value: 0)
    }
}
