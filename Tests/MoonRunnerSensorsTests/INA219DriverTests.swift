import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

/// The INA219 driver against the register-level emulator of a UPS board's
/// monitor: voltage and current of a draining cell, and the faults.
@Suite("INA219 current monitor")
struct INA219DriverTests {
    static let address: UInt8 = 0x40

    static func rig(cell: CellModel = CellModel(),
                    faults: [ScheduledFault] = []) -> (GaugeClock, INA219Emulator, INA219Driver) {
        let c = GaugeClock()
        let emu = INA219Emulator(model: .ina219, address: address, cell: cell, clock: c.closure)
        let bus: any I2CBus = faults.isEmpty ? emu : ScheduledFaultBus(device: emu, plan: faults, clock: c.closure)
        return (c, emu, INA219Driver(bus: bus, address: address, path: "/dev/i2c-1"))
    }

    @Test("the calibration for Waveshare's 0.1 Ω shunt is theirs, 4096; extremes stay in range")
    func calibration() {
        #expect(INA219Driver.calibration(shuntOhms: 0.1) == 4096)
        #expect(INA219Driver.calibration(shuntOhms: 0.01) == 40960)
        #expect(INA219Driver.calibration(shuntOhms: 1e6) == 2)
        #expect(INA219Driver.calibration(shuntOhms: 1e-9) == 0xFFFE)
    }

    @Test("bring-up writes 16 V / ±160 mV / 128 samples and the calibration, and reads both back")
    func bringUp() throws {
        let (_, emu, driver) = Self.rig()
        #expect(throws: GaugeError.notInitialized) { try driver.read() }
        try driver.initialize()
        #expect(driver.model == .ina219)
        #expect(driver.label == "INA219 at 0x40 on /dev/i2c-1")
        #expect(try gaugeWord(emu, Self.address, INA219Register.configuration) == 0x17FF)
        #expect(try gaugeWord(emu, Self.address, INA219Register.calibration) == 4096)
        #expect(emu.stats.writes == 2)
    }

    @Test("volts and amperes of a 2 Ah cell under 0.8 A; a charger's current reads negative")
    func readsTheCell() throws {
        let (c, emu, driver) = Self.rig()
        try driver.initialize()
        c.advance(300)
        let s = try driver.read()
        #expect(abs(s.volts - emu.cell.volts(at: c.now)) <= 0.002, "\(s.volts) V, 4 mV a step")
        #expect(abs(s.current - 0.8) <= 0.00011, "\(s.current) A: the discharge positive, as the core wants it")
        #expect(s.charging == false)
        #expect(s.percent.isNaN, "the INA219 has no charge of its own")
        emu.setLoad(-0.6)
        c.advance(10)
        let charging = try driver.read()
        #expect(abs(charging.current - -0.6) <= 0.00011)
        #expect(charging.charging == true)
    }

    @Test("a current beyond the PGA's ±160 mV overflows: no current, the voltage still read")
    func overflow() throws {
        let (c, emu, driver) = Self.rig(cell: CellModel(load: 2.0))
        try driver.initialize()
        c.advance(1)
        let s = try driver.read()
        #expect(s.current.isNaN)
        #expect(s.charging == nil)
        #expect(abs(s.volts - emu.cell.volts(at: c.now)) <= 0.002)
    }

    @Test("a chip that reset itself (calibration 0) is reported; bring-up again restores it")
    func reset() throws {
        let (c, emu, driver) = Self.rig()
        try driver.initialize()
        try setGaugeWord(emu, Self.address, INA219Register.configuration, INA219Register.reset)
        #expect(try gaugeWord(emu, Self.address, INA219Register.calibration) == 0)
        #expect(throws: GaugeError.deviceReset) { try driver.read() }
        try driver.initialize()
        c.advance(1)
        #expect(abs(try driver.read().current - 0.8) <= 0.00011)
    }

    @Test("a NACK or an EIO is the bus's error; a foreign configuration read back fails the bring-up")
    func faults() throws {
        let (c, emu, driver) = Self.rig()
        try driver.initialize()
        emu.isPresent = false
        #expect(throws: GaugeError.bus(.nack(address: Self.address))) { try driver.read() }
        emu.isPresent = true
        emu.failNextReads(2, with: .timeout)
        #expect(throws: GaugeError.bus(.timeout)) { try driver.read() }
        #expect(throws: GaugeError.bus(.timeout)) { try driver.read() }
        c.advance(1)
        #expect(try driver.read().volts > 3.5)

        let (_, _, foreign) = Self.rig(faults: [ScheduledFault(kind: .whoami, start: 0, duration: 10)])
        #expect(throws: GaugeError.configurationMismatch(register: INA219Register.configuration, wrote: 0x17FF,
                                                         read: 0x42FF)) { try foreign.initialize() }
        #expect(foreign.model == nil)
    }

    @Test("a single byte written to a 16-bit register is ignored, as the chip does")
    func singleByteWrite() throws {
        let (_, emu, driver) = Self.rig()
        try driver.initialize()
        try emu.writeRegister(INA219Register.calibration, value: 0)
        #expect(try gaugeWord(emu, Self.address, INA219Register.calibration) == 4096)
        #expect(emu.stats.writes == 2)
    }

    @Test("a bus voltage that jumps 1 V low moves neither the counted charge nor the alarms")
    func jump() throws {
        let (c, emu, driver) = Self.rig(faults: [ScheduledFault(kind: .jump, start: 145, duration: 10)])
        try driver.initialize()
        var policy = BatteryPolicy()
        policy.critical = .volts(3.3)
        policy.confirm = 20
        var monitor = BatteryMonitor(policy: policy)
        var alarms: [BatteryAlarm] = []
        var volts: [Double] = []
        for _ in 0...40 {
            let s = try driver.read()
            volts.append(s.volts)
            alarms += monitor.take(s.reading(at: c.now))
            c.advance(10)
        }
        #expect(volts[15] < 3.0 && volts[14] > 3.7 && volts[16] > 3.7, "the driver passes on what the chip says")
        #expect(alarms.isEmpty)
        let percent = try #require(monitor.state?.percent)
        #expect(abs(percent - emu.cell.percent(at: 1_400)) < 1, "\(percent) % counted for the cell's \(emu.cell.percent(at: 1_400)) %")
    }
}
