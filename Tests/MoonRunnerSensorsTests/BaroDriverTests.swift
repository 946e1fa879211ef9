import Foundation
import MoonRunnerCore
import Synchronization
import Testing
@testable import MoonRunnerSensors

/// A clock that only moves when told (or when the driver sleeps on it).
final class BaroTestClock: Sendable {
    private let t = Mutex(1_000.0)
    var now: Double { t.withLock { $0 } }
    func advance(_ s: Double) { t.withLock { $0 += s } }
    var clock: IMUClock { IMUClock(now: { self.now }, sleep: { self.advance($0) }) }
}

/// The barometer drivers against the register-level emulators: the datasheet's
/// arithmetic bit for bit, traces end to end, and the faults a bus can throw.
@Suite("Barometer drivers")
struct BaroDriverTests {
    @Test("BMP280 compensation: the datasheet's worked example, bit for bit")
    func datasheetExample() {
        let trim = BMP280Calibration.datasheetExample
        let (tFine, t) = trim.temperature(adc: 519_888)
        #expect(tFine == 128_422)
        #expect(t == 2508)                      // 25.08 °C
        let p = trim.pressure(adc: 415_148, tFine: tFine)
        #expect(p == 25_767_233)                // Q24.8: 100653.25 Pa (the double formula: 100653.27)
        #expect(abs(Double(p) / 256 - 100_653.27) < 0.05)
    }

    @Test("the driver reads the trim from the emulator and computes the datasheet example")
    func datasheetExampleThroughTheDriver() throws {
        let c = BaroTestClock()
        let emu = BMP280Emulator(clock: { c.now })
        let driver = BMP280Driver(bus: emu, address: 0x76, clock: c.clock)
        try driver.initialize()
        #expect(driver.model == .bmp280)
        #expect(driver.calibration == .datasheetExample)
        emu.setRawWords(pressure: 415_148, temperature: 519_888)
        c.advance(0.2)
        let r = try #require(try driver.read())
        #expect(r.rawPressure == 415_148 && r.rawTemperature == 519_888)
        #expect(r.pressure == 25_767_233.0 / 256)
        #expect(r.temperature == 25.08)
    }

    @Test("the trim round-trips through its 24 bytes; garbage trim is refused")
    func trimBytes() throws {
        let bytes = BMP280Calibration.datasheetExample.bytes
        #expect(bytes.count == 24)
        let back = try bytes.withUnsafeBytes { b in try BMP280Calibration(bytes: b) }
        #expect(back == .datasheetExample)
        let zeros = [UInt8](repeating: 0, count: 24)
        #expect(throws: BaroDriverError.self) {
            try zeros.withUnsafeBytes { b in _ = try BMP280Calibration(bytes: b) }
        }
        let bmp3 = BMP388Calibration.typical.bytes
        let back3 = try bmp3.withUnsafeBytes { b in try BMP388Calibration(bytes: b) }
        #expect(back3 == .typical && bmp3.count == 21)
    }

    @Test("the driver writes the handheld low-power use case: ×16/×2, filter 4, 62.5 ms, normal mode")
    func settingsWritten() throws {
        let c = BaroTestClock()
        let emu = BMP280Emulator(clock: { c.now })
        let driver = BMP280Driver(bus: emu, address: 0x76, clock: c.clock)
        try driver.initialize()
        var buf = [UInt8](repeating: 0, count: 2)
        try buf.withUnsafeMutableBytes { try emu.readRegisters(BMP280Register.ctrlMeas, into: $0) }
        #expect(buf == [0x57, 0x28])
        #expect(abs(driver.measurementPeriod - 0.1) < 1e-9)   // 37.5 ms conversion + 62.5 ms standby: 10 Hz
        #expect(emu.stats.resets == 1)
    }

    /// A trace of `seconds` at 10 Hz: a slow climb with temperature rising, as a body-worn sensor sees it.
    static func trace(seconds: Int, t0: Double = 0) -> [BaroSample] {
        (0..<(seconds * 10)).map { i in
            let t = Double(i) / 10
            return BaroSample(t: t0 + t, pressure: 98_000 - 0.5 * t + 3 * sin(t / 7), temperature: 22 + 8 * (1 - exp(-t / 240)))
        }
    }

    @Test("BMP280 and BME280: a trace through the emulator and the real driver comes back to 0.2 Pa",
          arguments: [BarometerModel.bmp280, .bme280])
    func bmp280Roundtrip(model: BarometerModel) throws {
        let c = BaroTestClock()
        let trace = Self.trace(seconds: 30)
        let emu = BMP280Emulator(model: model, clock: { c.now }, trace: trace)
        let driver = try #require(try BarometerProbe.driver(bus: emu, address: 0x76, clock: c.clock) as? BMP280Driver)
        try driver.initialize()
        #expect(driver.model == model)
        var worst = 0.0, n = 0
        let start = c.now
        for _ in 0..<200 {
            c.advance(0.1)
            guard let r = try driver.read(), let first = emu.traceStartTime else { continue }
            // The IIR filter (coefficient 4) lags a moving input by about 3 readings.
            let x = c.now - start > 1 ? c.now - first + trace[0].t - 0.3 : .nan
            guard x.isFinite, x < 29 else { continue }
            let want = 98_000 - 0.5 * x + 3 * sin(x / 7)
            worst = max(worst, abs(r.pressure - want))
            n += 1
        }
        #expect(n > 150)
        #expect(worst < 0.6, "worst \(worst) Pa")
    }

    @Test("BMP280 with the filter off: every reading is the trace's to one LSB (0.2 Pa)")
    func bmp280Exact() throws {
        let c = BaroTestClock()
        let trace = Self.trace(seconds: 20)
        let emu = BMP280Emulator(clock: { c.now }, trace: trace)
        var settings = BMP280Settings()
        settings.filter = 0
        let driver = BMP280Driver(bus: emu, address: 0x76, settings: settings, clock: c.clock)
        try driver.initialize()
        var worst = 0.0, n = 0
        var last: UInt32?
        while n < 150 {
            c.advance(0.05)
            guard let r = try driver.read(), r.rawPressure != last, let first = emu.traceStartTime else { continue }
            last = r.rawPressure
            // Measurements land on the emulator's 100 ms grid; the last one is at most one period old.
            let tick = first + ((c.now - first) / 0.1 + 1e-9).rounded(.down) * 0.1
            let x = tick - first + trace[0].t
            let want = 98_000 - 0.5 * x + 3 * sin(x / 7)
            worst = max(worst, abs(r.pressure - want))
            n += 1
        }
        #expect(worst < 0.2, "worst \(worst) Pa")
    }

    @Test("BMP388 and BMP390: floating-point compensation, a trace comes back to 0.05 Pa",
          arguments: [BarometerModel.bmp388, .bmp390])
    func bmp388Roundtrip(model: BarometerModel) throws {
        let c = BaroTestClock()
        let trace = Self.trace(seconds: 20)
        let emu = BMP388Emulator(model: model, clock: { c.now }, trace: trace)
        let probe = try BarometerProbe.driver(bus: emu, address: 0x77, clock: c.clock)
        #expect(probe is BMP388Driver)
        var settings = BMP388Settings()
        settings.filter = 0
        let driver = BMP388Driver(bus: emu, address: 0x77, settings: settings, clock: c.clock)
        try driver.initialize()
        #expect(driver.model == model)
        var worst = 0.0, worstT = 0.0, n = 0
        var last: UInt32?
        while n < 150 {
            c.advance(0.04)
            guard let r = try driver.read(), r.rawPressure != last, let first = emu.traceStartTime else { continue }
            last = r.rawPressure
            let tick = first + ((c.now - first) / 0.08 + 1e-9).rounded(.down) * 0.08
            let x = tick - first + trace[0].t
            worst = max(worst, abs(r.pressure - (98_000 - 0.5 * x + 3 * sin(x / 7))))
            worstT = max(worstT, abs(r.temperature - (22 + 8 * (1 - exp(-x / 240)))))
            n += 1
        }
        #expect(worst < 0.05, "worst \(worst) Pa")
        #expect(worstT < 0.01, "worst \(worstT) °C")
    }

    @Test("BMP388: an ODR faster than the oversampling allows is refused by the device (conf_err)")
    func bmp388ConfigurationError() {
        let c = BaroTestClock()
        let emu = BMP388Emulator(clock: { c.now })
        var settings = BMP388Settings()
        settings.odr = 0   // 200 Hz with ×16 pressure: impossible
        let driver = BMP388Driver(bus: emu, address: 0x77, settings: settings, clock: c.clock)
        #expect(throws: BaroDriverError.deviceError(BMP388Register.errConf)) { try driver.initialize() }
    }

    @Test("faults: NACK, EIO, a foreign chip id, a device that reset itself")
    func faults() throws {
        let c = BaroTestClock()
        let emu = BMP280Emulator(clock: { c.now }, trace: Self.trace(seconds: 10))
        let driver = BMP280Driver(bus: emu, address: 0x76, clock: c.clock)

        emu.isPresent = false
        #expect(throws: BaroDriverError.bus(.nack(address: 0x76))) { try driver.initialize() }
        emu.isPresent = true

        emu.chipIDOverride = 0x42
        #expect(throws: BaroDriverError.unknownDevice(chipID: 0x42, address: 0x76)) { try driver.initialize() }
        #expect(throws: BaroDriverError.unknownDevice(chipID: 0x42, address: 0x76)) {
            _ = try BarometerProbe.driver(bus: emu, address: 0x76, clock: c.clock)
        }
        emu.chipIDOverride = nil

        try driver.initialize()
        c.advance(0.3)
        _ = try driver.read()
        emu.failNextReads(1)
        #expect(throws: BaroDriverError.bus(.eio)) { _ = try driver.read() }

        // A brown-out: the device is back in sleep mode with its reset values.
        try emu.writeRegister(BMP280Register.reset, value: BMP280Register.resetCommand)
        c.advance(0.01)
        #expect(throws: BaroDriverError.deviceReset) { _ = try driver.read() }
        try driver.initialize()
        c.advance(0.3)
        #expect(try driver.read() != nil)
    }

    @Test("in normal mode the BMP280 ignores writes to config, as the datasheet warns")
    func configIgnoredInNormalMode() throws {
        let c = BaroTestClock()
        let emu = BMP280Emulator(clock: { c.now })
        try emu.select(address: 0x76)
        try emu.writeRegister(BMP280Register.ctrlMeas, value: 0x57)
        try emu.writeRegister(BMP280Register.config, value: 0x28)
        #expect(try emu.readRegister(BMP280Register.config) == 0)
        try emu.writeRegister(BMP280Register.ctrlMeas, value: 0x54)   // sleep
        try emu.writeRegister(BMP280Register.config, value: 0x28)
        #expect(try emu.readRegister(BMP280Register.config) == 0x28)
    }

    @Test("source specs: none, i2c at 0x76/0x77, replay with faults; mistakes are named")
    func specs() throws {
        #expect(try BaroSourceSpec.parse("none") == .none)
        #expect(try BaroSourceSpec.parse("i2c:/dev/i2c-1") == .i2c(path: "/dev/i2c-1", address: 0x76))
        #expect(try BaroSourceSpec.parse(" i2c:/dev/i2c-3@0x77 ") == .i2c(path: "/dev/i2c-3", address: 0x77))
        #expect(try BaroSourceSpec.parse("replay:a,b.csv.gz,speed=8,fault=stuck@3+2,fault=chipid@9") ==
            .replay(path: "a,b.csv.gz", speed: 8, loop: false,
                    faults: [ScheduledFault(kind: .stuck, start: 3, duration: 2), ScheduledFault(kind: .chipid, start: 9)]))
        for bad in ["i2c:/dev/i2c-1@0x68", "replay:x.csv,fault=overflow@1", "replay:", "baro", "i2c:dev"] {
            #expect(throws: BaroSourceSpecError.self, "\(bad)") { try BaroSourceSpec.parse(bad) }
        }
        let e = try? BaroSourceSpec.parse("i2c:/dev/i2c-1@0x68")
        #expect(e == nil)
        // The IMU keeps its grammar through the shared parser.
        #expect(try IMUSourceSpec.parse("replay:w.csv,speed=2,loop,fault=eio@1+2") ==
            .replay(path: "w.csv", speed: 2, loop: true, faults: [ScheduledFault(kind: .eio, start: 1, duration: 2)]))
    }
}
