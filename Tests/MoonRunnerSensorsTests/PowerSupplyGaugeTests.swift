import Foundation
import Testing
@testable import MoonRunnerSensors

/// The kernel's power_supply class as the battery gauge, on a fake sysfs tree.
@Suite("power_supply gauge")
struct PowerSupplyGaugeTests {
    /// A `power_supply` folder with a battery `BAT0` of these attributes, and a mains supply `AC`.
    static func tree(_ attributes: [String: String]) throws -> (IMUTempDir, String) {
        let dir = IMUTempDir()
        for (folder, files) in [("BAT0", attributes), ("AC", ["type": "Mains", "online": "1"])] {
            try FileManager.default.createDirectory(atPath: "\(dir.path)/\(folder)", withIntermediateDirectories: true)
            for (name, value) in files { _ = try dir.write("\(folder)/\(name)", value + "\n") }
        }
        return (dir, "\(dir.path)/BAT0")
    }

    static let discharging = ["type": "Battery", "present": "1", "status": "Discharging", "capacity": "76",
                              "voltage_now": "3912000", "current_now": "-450000"]

    @Test("a discharging battery: capacity, µV and µA as percent, volts and a positive current")
    func discharging() throws {
        let (dir, folder) = try Self.tree(Self.discharging)
        #expect(PowerSupplyGauge.batteries(under: dir.path) == ["BAT0"], "the mains supply is no battery")
        let gauge = PowerSupplyGauge(folder: folder)
        try gauge.initialize()
        #expect(gauge.model == .powerSupply)
        let s = try gauge.read()
        #expect(s.percent == 76)
        #expect(abs(s.volts - 3.912) < 1e-9)
        #expect(abs(s.current - 0.45) < 1e-9, "the ABI's negative discharge turned into the core's positive one")
        #expect(s.charging == false)
    }

    @Test("charging: the current into the cell is negative, whatever sign the driver gave it")
    func charging() throws {
        var attributes = Self.discharging
        attributes["status"] = "Charging"
        attributes["current_now"] = "300000"
        let (dir, folder) = try Self.tree(attributes)
        let gauge = PowerSupplyGauge(folder: folder)
        try gauge.initialize()
        _ = dir
        let s = try gauge.read()
        #expect(abs(s.current - -0.3) < 1e-9)
        #expect(s.charging == true)
        try "Full\n".write(toFile: "\(folder)/status", atomically: true, encoding: .utf8)
        try "101\n".write(toFile: "\(folder)/capacity", atomically: true, encoding: .utf8)
        let full = try gauge.read()
        #expect(full.charging == true && full.percent == 100)
    }

    @Test("a voltage alone is enough; neither capacity nor voltage is an error saying so")
    func voltageOnly() throws {
        let (dir, folder) = try Self.tree(["type": "Battery", "voltage_now": "3700000", "status": "Unknown"])
        let gauge = PowerSupplyGauge(folder: folder)
        try gauge.initialize()
        let s = try gauge.read()
        #expect(s.percent.isNaN && abs(s.volts - 3.7) < 1e-9 && s.current.isNaN && s.charging == nil)
        try FileManager.default.removeItem(atPath: "\(folder)/voltage_now")
        let error = #expect(throws: GaugeError.self) { try gauge.read() }
        #expect(error?.description.contains("neither capacity nor voltage_now") == true)
        _ = dir
    }

    @Test("a missing folder or type file is a clear error naming the file")
    func missingFile() throws {
        let (dir, folder) = try Self.tree(Self.discharging)
        let nowhere = PowerSupplyGauge(folder: "\(dir.path)/BAT9")
        let error = #expect(throws: GaugeError.self) { try nowhere.initialize() }
        #expect(error == .file("cannot read \(dir.path)/BAT9/type: No such file or directory"))
        #expect(throws: GaugeError.notInitialized) { try nowhere.read() }
        try FileManager.default.removeItem(atPath: "\(folder)/type")
        let noType = #expect(throws: GaugeError.self) { try PowerSupplyGauge(folder: folder).initialize() }
        #expect(noType?.description.hasPrefix("cannot read \(folder)/type") == true)
    }

    @Test("a mains supply, an absent battery and a number that is none are refused, never trusted")
    func refusals() throws {
        let (dir, folder) = try Self.tree(Self.discharging)
        let mains = #expect(throws: GaugeError.self) { try PowerSupplyGauge(folder: "\(dir.path)/AC").initialize() }
        #expect(mains?.description.contains("type Mains, not Battery") == true)
        try "0\n".write(toFile: "\(folder)/present", atomically: true, encoding: .utf8)
        #expect(throws: GaugeError.noBattery) { try PowerSupplyGauge(folder: folder).initialize() }
        try "1\n".write(toFile: "\(folder)/present", atomically: true, encoding: .utf8)
        try "lots\n".write(toFile: "\(folder)/capacity", atomically: true, encoding: .utf8)
        try "9223372036854775807\n".write(toFile: "\(folder)/current_now", atomically: true, encoding: .utf8)
        let gauge = PowerSupplyGauge(folder: folder)
        try gauge.initialize()
        let s = try gauge.read()
        #expect(s.percent.isNaN, "a capacity that is no number is no capacity")
        #expect(abs(s.volts - 3.912) < 1e-9)
        #expect(s.current > 9e12, "an absurd current is passed on as read, without a crash")
        #expect(throws: GaugeError.file("\(folder)/capacity holds 'lots', not a number")) {
            _ = try PowerSupplyGauge.number("\(folder)/capacity")
        }
    }
}
