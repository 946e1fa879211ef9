import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

/// The battery service on its own thread, built by `BatteryService.make` as
/// the daemon builds it: the emulated gauges on a virtual clock (as the
/// barometer's service tests run: faults on the virtual timeline, the clock
/// stopped at a horizon), and `auto` / `power_supply` on a fake sysfs tree.
@Suite("Battery service")
struct BatteryServiceTests {
    struct Run {
        var readings: [BatteryReading]
        var status: BatteryServiceStatus
        func readings(from a: Double, to b: Double) -> [BatteryReading] { readings.filter { $0.t >= a && $0.t < b } }
    }

    static let start = 1_000.0

    static func make(_ text: String, _ clock: IMUManualClock) throws -> BatteryService {
        let spec = try BatterySourceSpec.parse(text)
        return try #require(try BatteryService.make(spec: spec, clock: clock.imuClock))
    }

    /// Runs `service` until the clock reaches `horizon`; everything it sent and its status then.
    static func run(_ service: BatteryService, _ clock: IMUManualClock, until horizon: Double) async -> Run {
        clock.horizon = horizon
        let stream = service.readings
        let drain = Task.detached { () -> [BatteryReading] in
            var all: [BatteryReading] = []
            for await r in stream { all.append(r) }
            return all
        }
        service.start()
        let reached = await imuWait(timeout: 30) { clock.now >= horizon }
        #expect(reached, "virtual clock stuck at \(clock.now), horizon \(horizon)")
        service.stop()
        let readings = await drain.value
        let status = service.status
        #expect(status.counters.droppedBatches == 0)
        #expect(readings.count == status.counters.samples)
        #expect(status.running == false)
        return Run(readings: readings, status: status)
    }

    /// The charge of the emulated cell (2 Ah, 0.8 A) `t` seconds after the first transfer.
    static func cellPercent(from startPercent: Double, at t: Double) -> Double {
        let cell = CellModel(capacityAh: 2, load: 0.8, startPercent: startPercent)
        var started = cell
        started.start = start
        return started.percent(at: t)
    }

    @Test("MAX17048: a reading every 10 s of engine time, with the cell's charge and voltage")
    func max17048() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        let service = try Self.make("emulated:MAX17048,percent=50", clock)
        #expect(service.status.source == "emulated:MAX17048,percent=50.0,load=0.8,capacity=2.0")
        let run = await Self.run(service, clock, until: Self.start + 300)
        let r = run.readings
        #expect((29...31).contains(r.count), "\(r.count) readings in 300 s")
        #expect(zip(r, r.dropFirst()).allSatisfy { abs($0.1.t - $0.0.t - 10) < 1e-6 }, "every 10 s")
        for reading in r {
            let expected = Self.cellPercent(from: 50, at: reading.t)
            #expect(abs(reading.percent - expected) <= 0.01, "\(reading.percent) % at \(reading.t), the cell \(expected) %")
            #expect((3.4...4.0).contains(reading.volts), "\(reading.volts) V")
            #expect(reading.current.isNaN, "a MAX1704x measures no current")
            #expect(reading.charging == false)
        }
        let last = try #require(r.last)
        let drained = 50 - last.percent
        #expect((3.0...3.4).contains(drained), "0.8 A from 2 Ah: 0.011 % a second")
        #expect(run.status.health == .ok)
        #expect(run.status.device == "MAX17048 at 0x36 on (emulated)")
        #expect(run.status.counters.initializations == 1)
        #expect(run.status.counters.busErrors == 0)
        #expect(run.status.lastError == nil)
    }

    @Test("INA219: voltage and current, the charge left to the core (NaN)")
    func ina219() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        let service = try Self.make("emulated:INA219,percent=60", clock)
        let run = await Self.run(service, clock, until: Self.start + 120)
        #expect((11...13).contains(run.readings.count), "\(run.readings.count) readings")
        var cell = CellModel(capacityAh: 2, load: 0.8, startPercent: 60)
        cell.start = Self.start
        for reading in run.readings {
            let volts = cell.volts(at: reading.t)
            #expect(reading.percent.isNaN, "the INA219 has no charge of its own")
            #expect(abs(reading.volts - volts) <= 0.004, "\(reading.volts) V, the cell \(volts) V")
            #expect(abs(reading.current - 0.8) <= 0.0002, "\(reading.current) A")
            #expect(reading.charging == false)
        }
        #expect(run.status.device == "INA219 at 0x40 on (emulated)")
        #expect(run.status.health == .ok)
    }

    @Test("a NACK: health lost, bus errors counted, no readings; back when the gauge answers again")
    func nack() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        // Faults count from the first transfer, the service's start.
        let service = try Self.make("emulated:MAX17048,percent=40,fault=nack@60+120", clock)
        let during = IMUBox<BatteryServiceStatus?>(nil)
        clock.at(Self.start + 170) { during.set(service.status) }
        let run = await Self.run(service, clock, until: Self.start + 400)
        let lost = try #require(during.get)
        #expect(lost.health == .lost, "\(lost.health) 110 s after the last reading")
        #expect(lost.counters.busErrors >= 3, "\(lost.counters.busErrors) bus errors")
        #expect(lost.counters.initFailures >= 1, "the gauge was brought up again, and failed")
        #expect(lost.lastError?.contains("no acknowledge from I2C address 0x36") == true, "\(lost.lastError ?? "nil")")
        #expect(lost.counters.samples == 6, "readings at 0, 10 … 50 s only")
        #expect(run.readings(from: Self.start + 60, to: Self.start + 180).isEmpty, "no reading while the gauge is silent")
        let after = run.readings(from: Self.start + 180, to: Self.start + 400)
        #expect(after.count >= 10, "\(after.count) readings once it answers again")
        for reading in after {
            let expected = Self.cellPercent(from: 40, at: reading.t)
            #expect(abs(reading.percent - expected) <= 0.01, "the cell drained meanwhile: \(reading.percent) %, \(expected) %")
        }
        #expect(run.status.health == .ok)
        #expect(run.status.counters.initializations >= 2)
        #expect(run.status.counters.busErrors >= lost.counters.busErrors)
    }

    // MARK: - auto and power_supply

    /// A folder laid out like /sys/class/power_supply: these batteries, and a mains supply.
    static func sysfs(batteries: [String]) throws -> IMUTempDir {
        let dir = IMUTempDir()
        var supplies: [(String, [String: String])] = [("AC", ["type": "Mains", "online": "1"])]
        for name in batteries {
            supplies.append((name, ["type": "Battery", "present": "1", "status": "Discharging", "capacity": "76",
                                    "voltage_now": "3912000", "current_now": "-450000"]))
        }
        for (folder, files) in supplies {
            try FileManager.default.createDirectory(atPath: "\(dir.path)/\(folder)", withIntermediateDirectories: true)
            for (name, value) in files { _ = try dir.write("\(folder)/\(name)", value + "\n") }
        }
        return dir
    }

    @Test("one battery: auto and power_supply take it, and its readings come through")
    func oneBattery() async throws {
        let dir = try Self.sysfs(batteries: ["BAT0"])
        let clock = IMUManualClock(start: Self.start, realPause: 0.0005)
        let auto = try #require(try BatteryService.make(spec: .auto, clock: clock.imuClock, powerSupplyRoot: dir.path))
        #expect(auto.status.source == "auto (power_supply:\(dir.path)/BAT0)")
        let named = try #require(try BatteryService.make(spec: .powerSupply(folder: nil), clock: clock.imuClock,
                                                         powerSupplyRoot: dir.path))
        #expect(named.status.source == "power_supply")
        let run = await Self.run(auto, clock, until: Self.start + 25)
        #expect(run.readings.count == 3, "at 0, 10 and 20 s")
        let first = try #require(run.readings.first)
        #expect(first.percent == 76)
        #expect(abs(first.volts - 3.912) < 1e-9)
        #expect(abs(first.current - 0.45) < 1e-9)
        #expect(first.charging == false)
        #expect(run.status.health == .ok)
        #expect(run.status.counters.stuck == 0, "a power_supply's numbers may rest: never taken as frozen")
    }

    @Test("no battery: auto is no gauge; power_supply is an error naming the folder")
    func noBattery() throws {
        let dir = try Self.sysfs(batteries: [])
        let clock = IMUManualClock(start: Self.start)
        #expect(try BatteryService.make(spec: .auto, clock: clock.imuClock, powerSupplyRoot: dir.path) == nil)
        let error = #expect(throws: BatterySourceError.self) {
            _ = try BatteryService.make(spec: .powerSupply(folder: nil), clock: clock.imuClock, powerSupplyRoot: dir.path)
        }
        #expect(error?.description.contains(dir.path) == true, "\(error?.description ?? "nil")")
        #expect(error?.description.contains("found none") == true, "\(error?.description ?? "nil")")
        let missing = "\(dir.path)/nowhere"
        #expect(try BatteryService.make(spec: .auto, clock: clock.imuClock, powerSupplyRoot: missing) == nil)
        #expect(throws: BatterySourceError.self) {
            _ = try BatteryService.make(spec: .powerSupply(folder: nil), clock: clock.imuClock, powerSupplyRoot: missing)
        }
    }

    @Test("two batteries are ambiguous: auto takes neither; power_supply names both")
    func twoBatteries() throws {
        let dir = try Self.sysfs(batteries: ["BAT0", "BAT1"])
        let clock = IMUManualClock(start: Self.start)
        #expect(try BatteryService.make(spec: .auto, clock: clock.imuClock, powerSupplyRoot: dir.path) == nil)
        let error = #expect(throws: BatterySourceError.self) {
            _ = try BatteryService.make(spec: .powerSupply(folder: nil), clock: clock.imuClock, powerSupplyRoot: dir.path)
        }
        #expect(error?.description.contains("BAT0 and BAT1") == true, "\(error?.description ?? "nil")")
        let one = try BatteryService.make(spec: .powerSupply(folder: "\(dir.path)/BAT1"), clock: clock.imuClock,
                                          powerSupplyRoot: dir.path)
        #expect(one?.status.source == "power_supply:\(dir.path)/BAT1", "a named folder is taken as named")
    }

    @Test("none is no service; an I2C gauge is a service that opens nothing until started")
    func noneAndI2C() throws {
        let clock = IMUManualClock(start: Self.start)
        #expect(try BatteryService.make(spec: .none, clock: clock.imuClock) == nil)
        let i2c = try #require(try BatteryService.make(spec: .i2c(path: "/dev/i2c-1", address: 0x36), clock: clock.imuClock))
        #expect(i2c.status.source == "i2c:/dev/i2c-1@0x36")
        #expect(i2c.status.device == nil)
        #expect(i2c.status.running == false)
    }
}
