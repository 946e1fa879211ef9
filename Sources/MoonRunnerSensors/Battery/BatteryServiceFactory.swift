import MoonRunnerCore

/// Why `battery.source` names no gauge the daemon can read.
public struct BatterySourceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
}

extension BatteryService {
    /// The daemon's entry point: the service for `spec`, nil for `none` and
    /// for an `auto` that finds no single battery. `powerSupplyRoot` is the
    /// kernel's folder of power supplies (moved in tests).
    public static func make(spec: BatterySourceSpec, config: BatteryServiceConfig = BatteryServiceConfig(),
                            clock: IMUClock, powerSupplyRoot: String = PowerSupplyGauge.defaultRoot)
        throws(BatterySourceError) -> BatteryService? {
        switch spec {
        case .none:
            return nil
        case .auto:
            let found = PowerSupplyGauge.batteries(under: powerSupplyRoot)
            guard found.count == 1, let name = found.first else { return nil }
            return powerSupply("\(powerSupplyRoot)/\(name)", spec: "auto", config: config, clock: clock)
        case let .powerSupply(folder?):
            return powerSupply(folder, spec: spec.description, config: config, clock: clock)
        case .powerSupply(nil):
            let found = PowerSupplyGauge.batteries(under: powerSupplyRoot)
            guard found.count == 1, let name = found.first else {
                let what = found.isEmpty ? "none" : found.joined(separator: " and ")
                throw BatterySourceError(description: "power_supply needs exactly one battery under \(powerSupplyRoot) "
                                         + "(found \(what)); name it as power_supply:FOLDER")
            }
            return powerSupply("\(powerSupplyRoot)/\(name)", spec: spec.description, config: config, clock: clock)
        case let .i2c(path, address):
            return BatteryService(gauge: { () throws(GaugeError) -> any BatteryGauge in
                let bus: any I2CBus
                do throws(I2CError) { bus = try LinuxI2CBus(path: path) } catch { throw .bus(error) }
                if address == MAX1704xRegister.address { return MAX1704xDriver(bus: bus, address: address, path: path) }
                return INA219Driver(bus: bus, address: address, path: path)
            }, source: spec.description, config: config, clock: clock)
        case let .emulated(model, cell, faults):
            let (bus, address) = emulator(model, cell: cell, faults: faults, clock: clock)
            let path = "(emulated)"
            return BatteryService(gauge: { () throws(GaugeError) -> any BatteryGauge in
                if model == .ina219 { return INA219Driver(bus: bus, address: address, path: path) }
                return MAX1704xDriver(bus: bus, address: address, path: path)
            }, source: spec.description, config: config, clock: clock)
        }
    }

    private static func powerSupply(_ folder: String, spec: String, config: BatteryServiceConfig,
                                    clock: IMUClock) -> BatteryService {
        let source = spec == "auto" ? "auto (power_supply:\(folder))" : spec
        return BatteryService(gauge: { () throws(GaugeError) -> any BatteryGauge in PowerSupplyGauge(folder: folder) },
                              source: source, config: config, clock: clock)
    }

    /// The emulated gauge of `model` on the engine clock, its faults scheduled.
    private static func emulator(_ model: GaugeModel, cell: CellModel, faults: [ScheduledFault],
                                 clock: IMUClock) -> (any I2CBus, UInt8) {
        if model == .ina219 {
            let chip = INA219Emulator(model: model, address: INA219Register.addresses.lowerBound, cell: cell, clock: clock.now)
            let bus: any I2CBus = faults.isEmpty ? chip : ScheduledFaultBus(device: chip, plan: faults, clock: clock.now)
            return (bus, chip.address)
        }
        let chip = MAX1704xEmulator(model: model, address: MAX1704xRegister.address, cell: cell, clock: clock.now)
        let bus: any I2CBus = faults.isEmpty ? chip : ScheduledFaultBus(device: chip, plan: faults, clock: clock.now)
        return (bus, chip.address)
    }
}
