import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

/// `battery.source`: what each form parses to, that its description reads
/// back the same, and that every refusal says what is wrong with which part.
@Suite("Battery source spec")
struct BatterySourceSpecTests {
    /// The reason a spec is refused; "" when it is accepted.
    static func reason(_ text: String) -> String {
        do {
            _ = try BatterySourceSpec.parse(text)
            return ""
        } catch {
            return error.reason
        }
    }

    @Test("every form parses to its case; a bus without an address is the MAX1704x's 0x36")
    func forms() throws {
        #expect(try BatterySourceSpec.parse("none") == BatterySourceSpec.none)
        #expect(try BatterySourceSpec.parse(" auto ") == .auto)
        #expect(try BatterySourceSpec.parse("power_supply") == .powerSupply(folder: nil))
        let bat0 = try BatterySourceSpec.parse("power_supply:/sys/class/power_supply/BAT0")
        #expect(bat0 == .powerSupply(folder: "/sys/class/power_supply/BAT0"))
        #expect(try BatterySourceSpec.parse("i2c:/dev/i2c-1@0x36") == .i2c(path: "/dev/i2c-1", address: 0x36))
        #expect(try BatterySourceSpec.parse("i2c:/dev/i2c-1") == .i2c(path: "/dev/i2c-1", address: 0x36))
        #expect(try BatterySourceSpec.parse("i2c:/dev/i2c-3@0x40") == .i2c(path: "/dev/i2c-3", address: 0x40))
        #expect(try BatterySourceSpec.parse("i2c:/dev/i2c-1@0x4F") == .i2c(path: "/dev/i2c-1", address: 0x4F))
    }

    @Test("emulated: the model in any case, the cell's options and the scheduled faults")
    func emulated() throws {
        let spec = try BatterySourceSpec.parse("emulated:max17048,percent=32,load=1.2,capacity=1.5,fault=nack@20+30,fault=jump@100+5")
        guard case let .emulated(model, cell, faults) = spec else {
            Issue.record("not emulated: \(spec)")
            return
        }
        #expect(model == .max17048)
        #expect(cell.startPercent == 32)
        #expect(cell.load == 1.2)
        #expect(cell.capacityAh == 1.5)
        #expect(faults == [ScheduledFault(kind: .nack, start: 20, duration: 30), ScheduledFault(kind: .jump, start: 100, duration: 5)])
        guard case let .emulated(plain, defaults, none) = try BatterySourceSpec.parse("emulated:INA219") else {
            Issue.record("emulated:INA219 is not emulated")
            return
        }
        #expect(plain == .ina219)
        #expect(defaults == CellModel())
        #expect(none.isEmpty)
        let charging = try BatterySourceSpec.parse("emulated:MAX17043,load=-0.5")
        #expect(charging == .emulated(model: .max17043, cell: CellModel(capacityAh: 2, load: -0.5, startPercent: 80), faults: []),
                "a negative load is a charger")
    }

    @Test("each spec's description parses back to the same spec", arguments: [
        "none", "auto", "power_supply", "power_supply:/sys/class/power_supply/axp20x-battery",
        "i2c:/dev/i2c-1@0x36", "i2c:/dev/i2c-1", "i2c:/dev/i2c-11@0x43",
        "emulated:MAX17048", "emulated:INA219,percent=60,load=0.4,capacity=3",
        "emulated:MAX17043,percent=12.5,fault=eio@10+4,fault=stuck@40+400,fault=chipid@5+1",
    ])
    func roundTrip(_ text: String) throws {
        let spec = try BatterySourceSpec.parse(text)
        let again = try BatterySourceSpec.parse(spec.description)
        #expect(again == spec, "\(text) → \(spec.description)")
    }

    @Test("descriptions are the config's own words")
    func descriptions() throws {
        #expect(BatterySourceSpec.none.description == "none")
        #expect(BatterySourceSpec.auto.description == "auto")
        #expect(BatterySourceSpec.powerSupply(folder: nil).description == "power_supply")
        #expect(BatterySourceSpec.powerSupply(folder: "/x/BAT1").description == "power_supply:/x/BAT1")
        #expect(BatterySourceSpec.i2c(path: "/dev/i2c-1", address: 0x41).description == "i2c:/dev/i2c-1@0x41")
        let emulated = try BatterySourceSpec.parse("emulated:max17048,fault=nack@20+30").description
        #expect(emulated.hasPrefix("emulated:MAX17048,"), "\(emulated)")
        #expect(emulated.hasSuffix(",fault=nack@20.0+30.0"), "\(emulated)")
    }

    @Test("an address that is neither gauge's names it and both gauges' addresses")
    func badAddress() {
        let why = Self.reason("i2c:/dev/i2c-1@0x37")
        #expect(why.contains("0x37"), "\(why)")
        #expect(why.contains("0x36"), "\(why)")
        #expect(why.contains("0x40"), "\(why)")
        #expect(Self.reason("i2c:/dev/i2c-1@0x50").contains("0x50"))
        #expect(Self.reason("i2c:/dev/i2c-1@0x1ff").contains("0x1ff"), "not a 7-bit address")
        #expect(Self.reason("i2c:dev/i2c-1@0x36").contains("/dev/i2c-1"), "a relative device path")
    }

    @Test("an unknown model lists the models there are; the kernel's class is no emulator")
    func unknownModel() {
        let why = Self.reason("emulated:BQ27441")
        #expect(why.contains("one of MAX17043, MAX17048, INA219"), "\(why)")
        #expect(!why.contains("power_supply"), "\(why)")
        #expect(Self.reason("emulated:power_supply") == why)
        #expect(Self.reason("emulated:") == why)
    }

    @Test("a bad option names itself and what the options are", arguments: [
        ("emulated:MAX17048,speed=2", "speed=2"),
        ("emulated:MAX17048,percent=120", "percent=120"),
        ("emulated:MAX17048,percent=-1", "percent=-1"),
        ("emulated:MAX17048,capacity=0", "capacity=0"),
        ("emulated:MAX17048,load=lots", "load=lots"),
        ("emulated:MAX17048,loop", "loop"),
        ("emulated:MAX17048,percent=nan", "percent=nan"),
    ])
    func badOption(_ text: String, _ option: String) {
        let why = Self.reason(text)
        #expect(why.contains("'\(option)'"), "\(text): \(why)")
        #expect(why.contains("capacity"), "\(text): \(why)")
    }

    @Test("a fault a gauge cannot have (an IMU's FIFO overflow, WHO_AM_I) lists the gauge's faults", arguments: [
        "fault=overflow@5", "fault=whoami@5+2", "fault=melt@5", "fault=nack", "fault=nack@-1",
    ])
    func badFault(_ fault: String) {
        let why = Self.reason("emulated:MAX17048,\(fault)")
        #expect(why.contains("'\(fault)'"), "\(why)")
        #expect(why.hasSuffix("KIND one of eio, nack, chipid, stuck, jump"), "\(why)")
    }

    @Test("power_supply: wants an absolute folder")
    func powerSupplyFolder() {
        for text in ["power_supply:", "power_supply:BAT0", "power_supply:sys/class/power_supply/BAT0"] {
            #expect(Self.reason(text).contains("folder"), "\(text): \(Self.reason(text))")
        }
    }

    @Test("anything else lists the forms; the error names the spec as written")
    func otherwise() throws {
        for text in ["", "max17048", "gpio:4", "replay:/tmp/battery.csv", "AUTO"] {
            let why = Self.reason(text)
            #expect(why.contains("'none', 'auto', 'power_supply[:FOLDER]'"), "\(text): \(why)")
        }
        let error = #expect(throws: BatterySourceSpecError.self) { try BatterySourceSpec.parse(" gpio:4") }
        #expect(error?.spec == " gpio:4")
        #expect(error?.description.hasPrefix("invalid battery source ' gpio:4': expected") == true)
    }
}
