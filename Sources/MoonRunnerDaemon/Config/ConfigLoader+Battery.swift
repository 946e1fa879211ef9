import MoonRunnerConfig
import MoonRunnerSensors
import MoonRunnerYAML

extension ConfigLoader {
    /// The `battery.*` keys, applied as the others are.
    static let batteryKeys: [String: @Sendable (inout DaemonConfig, String, Any) throws(ConfigError) -> Void] = [
        "battery.source": { c, k, v throws(ConfigError) in c.battery.source = try batterySource(k, v) },
        "battery.power_supply_dir": { c, k, v throws(ConfigError) in
            let s = try path(k, v)
            guard s.hasPrefix("/") else { throw ConfigError(key: k, value: s, allowed: "an absolute path to a folder") }
            c.battery.powerSupplyDir = s
        },
        "battery.interval_s": { c, k, v throws(ConfigError) in c.battery.interval = try double(k, v, 1...600) },
        "battery.warn_percent": { c, k, v throws(ConfigError) in c.battery.warnPercent = try percents(k, v) },
        "battery.critical_percent": { c, k, v throws(ConfigError) in c.battery.criticalPercent = try double(k, v, 0...50) },
        "battery.critical_volts": { c, k, v throws(ConfigError) in
            c.battery.criticalVolts = v is YAMLNull ? nil : try double(k, v, 2.8...3.9)
        },
        "battery.confirm_s": { c, k, v throws(ConfigError) in c.battery.confirm = try double(k, v, 0...600) },
        "battery.capacity_mah": { c, k, v throws(ConfigError) in c.battery.capacityMAh = try double(k, v, 100...100_000) },
        "battery.poweroff": { c, k, v throws(ConfigError) in c.battery.powerOff = try bool(k, v) },
        "battery.poweroff_delay_s": { c, k, v throws(ConfigError) in c.battery.powerOffDelay = try double(k, v, 0...300) },
    ]

    static func batterySource(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try string(k, v, nonEmpty: true)
        do {
            _ = try BatterySourceSpec.parse(s)
        } catch {
            throw ConfigError(key: k, value: s, allowed: "auto, none, power_supply[:FOLDER], i2c:/dev/i2c-N@0x36 (MAX1704x) "
                              + "or @0x40…0x4F (INA219), or emulated:MODEL (\(error.reason))")
        }
        return s
    }

    /// Distinct charges in percent, each 1–99, told from the highest down; `[]` for none.
    static func percents(_ k: String, _ v: Any) throws(ConfigError) -> [Double] {
        let allowed = "a list of charges in percent such as [20, 10] (each 1 to 99), or [] for none"
        guard let list = v as? [Any] else { throw ConfigError(key: k, value: describe(v), allowed: allowed) }
        var out: [Double] = []
        for item in list {
            guard let p = try? double(k, item, 1...99) else { throw ConfigError(key: k, value: describe(v), allowed: allowed) }
            if !out.contains(p) { out.append(p) }
        }
        return out.sorted(by: >)
    }
}
