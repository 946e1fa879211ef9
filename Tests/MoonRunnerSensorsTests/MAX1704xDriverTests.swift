import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

/// The MAX17043/MAX17048 driver against the register-level emulator: what it
/// reads of a draining cell, and the faults the bus and the gauge can throw.
@Suite("MAX1704x fuel gauge")
struct MAX1704xDriverTests {
    static let address = MAX1704xRegister.address

    static func rig(_ model: GaugeModel = .max17048, cell: CellModel = CellModel(),
                    faults: [ScheduledFault] = []) -> (GaugeClock, MAX1704xEmulator, MAX1704xDriver) {
        let c = GaugeClock()
        let emu = MAX1704xEmulator(model: model, address: address, cell: cell, clock: c.closure)
        let bus: any I2CBus = faults.isEmpty ? emu : ScheduledFaultBus(device: emu, plan: faults, clock: c.closure)
        return (c, emu, MAX1704xDriver(bus: bus, path: "/dev/i2c-1"))
    }

    @Test("MAX17048: percent, volts and the discharge of a 2 Ah cell under 0.8 A, ten minutes on")
    func readsTheCell() throws {
        let (c, emu, driver) = Self.rig()
        try driver.initialize()
        #expect(driver.model == .max17048)
        #expect(driver.label == "MAX17048 at 0x36 on /dev/i2c-1")
        #expect(try gaugeWord(emu, Self.address, MAX1704xRegister.status) & MAX1704xRegister.statusResetIndicator == 0,
                "bring-up clears the reset indicator, so that a later reset shows")
        c.advance(600)
        let s = try driver.read()
        let cell = emu.cell
        #expect(abs(cell.percent(at: c.now) - (80 - 0.8 * 600 / 7200 * 100)) < 1e-9)
        #expect(abs(s.percent - cell.percent(at: c.now)) <= 1.0 / 256)
        #expect(abs(s.volts - cell.volts(at: c.now)) < 0.0004, "\(s.volts) V against the cell's \(cell.volts(at: c.now)) V")
        #expect(s.current.isNaN, "the MAX1704x measures no current")
        #expect(s.charging == false, "CRATE reads -40 %/h")
        emu.setLoad(-0.5)
        c.advance(60)
        let charging = try driver.read()
        #expect(charging.charging == true)
        #expect(charging.percent > s.percent)
    }

    @Test("MAX17043: told by its version, a 12-bit VCELL, no CRATE to tell charging by")
    func max17043() throws {
        let (c, emu, driver) = Self.rig(.max17043)
        try driver.initialize()
        #expect(driver.model == .max17043)
        c.advance(30)
        let s = try driver.read()
        #expect(abs(s.volts - emu.cell.volts(at: c.now)) < 0.0015)
        #expect((s.raw >> 32) & 0xF == 0, "the low nibble of a MAX17043's VCELL is always 0")
        #expect(s.charging == nil)
    }

    @Test("a gauge left asleep is woken: its conversions follow the cell again")
    func wakesASleepingGauge() throws {
        let (c, emu, driver) = Self.rig()
        try setGaugeWord(emu, Self.address, MAX1704xRegister.config,
                         MAX1704xRegister.resetConfig | MAX1704xRegister.configSleep)
        let asleep = try gaugeWord(emu, Self.address, MAX1704xRegister.soc)
        c.advance(300)
        #expect(try gaugeWord(emu, Self.address, MAX1704xRegister.soc) == asleep, "asleep: the last conversion held")
        try driver.initialize()
        #expect(try gaugeWord(emu, Self.address, MAX1704xRegister.config) == MAX1704xRegister.resetConfig)
        #expect(try driver.read().percent < Double(asleep) / 256)
    }

    @Test("a foreign version is an unknown device, with the value it read")
    func unknownDevice() throws {
        let (_, _, driver) = Self.rig(faults: [ScheduledFault(kind: .chipid, start: 0, duration: 60)])
        let error = #expect(throws: GaugeError.self) { try driver.initialize() }
        guard case let .unknownDevice(why)? = error else {
            Issue.record("expected unknownDevice, got \(String(describing: error))")
            return
        }
        #expect(why.contains("0x4212"))
        #expect(driver.model == nil)
    }

    @Test("a NACK or an EIO is the bus's error, not a reading; the gauge reads again when it answers")
    func busFaults() throws {
        let (c, emu, driver) = Self.rig()
        #expect(throws: GaugeError.notInitialized) { try driver.read() }
        try driver.initialize()
        emu.isPresent = false
        #expect(throws: GaugeError.bus(.nack(address: Self.address))) { try driver.read() }
        #expect(throws: GaugeError.bus(.nack(address: Self.address))) { try driver.initialize() }
        emu.isPresent = true
        try driver.initialize()
        emu.failNextReads(1)
        #expect(throws: GaugeError.bus(.eio)) { try driver.read() }
        c.advance(1)
        #expect(try driver.read().percent > 79)
        #expect(GaugeError.bus(.nack(address: Self.address)).description.contains("0x36"))
    }

    @Test("a scheduled NACK fails the reads in its window only")
    func scheduledNack() throws {
        let (c, _, driver) = Self.rig(faults: [ScheduledFault(kind: .nack, start: 10, duration: 5)])
        try driver.initialize()
        var failed: [Int] = []
        for second in 1...20 {
            c.advance(1)
            do { _ = try driver.read() } catch { failed.append(second) }
        }
        #expect(failed == Array(10...14))
    }

    @Test("a power-on reset of the gauge is reported, and a new bring-up clears it")
    func reset() throws {
        let (c, emu, driver) = Self.rig()
        try driver.initialize()
        try setGaugeWord(emu, Self.address, 0xFE, 0x5400)
        #expect(throws: GaugeError.deviceReset) { try driver.read() }
        try driver.initialize()
        c.advance(1)
        #expect(try driver.read().volts > 3.5)
    }

    @Test("frozen readings repeat bit for bit, and the stuck watch sees it; live ones never repeat")
    func stuck() throws {
        let (c, _, driver) = Self.rig(faults: [ScheduledFault(kind: .stuck, start: 20, duration: 30)])
        try driver.initialize()
        var watch = StuckReadings(stuckAfter: 10)
        var verdicts: [Int: StuckReadings.Verdict] = [:]
        for second in 1...60 {
            c.advance(1)
            verdicts[second] = watch.check(raw: try driver.read().raw, at: c.now)
        }
        #expect((1...20).allSatisfy { verdicts[$0] == .fresh })
        #expect((21...30).allSatisfy { verdicts[$0] == .repeated })
        #expect((31...49).allSatisfy { verdicts[$0] == .stuck })
        #expect((50...60).allSatisfy { verdicts[$0] == .fresh })
    }

    @Test("a jumped reading is reported as read and held back by the monitor, counted once")
    func jump() throws {
        let (c, emu, driver) = Self.rig(faults: [ScheduledFault(kind: .jump, start: 95, duration: 10)])
        try driver.initialize()
        var monitor = BatteryMonitor()
        var alarms: [BatteryAlarm] = []
        var jumped = Double.nan
        for step in 0...30 {
            let s = try driver.read()
            if step == 10 { jumped = s.percent }
            alarms += monitor.take(s.reading(at: c.now))
            c.advance(10)
        }
        #expect(abs(jumped - (emu.cell.percent(at: 1_100) - 60)) < 0.01, "the driver passes on what the gauge says")
        #expect(monitor.jumps == 1)
        #expect(alarms.isEmpty, "a jump to 19 % is no warning")
        #expect(abs((monitor.state?.percent ?? 0) - emu.cell.percent(at: 1_300)) < 0.01)
    }
}
