import Foundation
import MoonRunnerConfig
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors
import Testing
@testable import MoonRunnerDaemon

/// What the battery's readings ask of the session service (`BatteryWatch`),
/// `STATUS.battery`, and the `battery.*` keys.
@Suite("Battery watch")
struct BatteryWatchTests {
    typealias Step = (t: Double, percent: Double, actions: [BatteryWatch.Action])

    /// A charge falling from 25 % to 3 %, half a percent every 10 s (0.05 %/s, well within what a cell can do).
    static func falling(_ watch: inout BatteryWatch, sessionActive: Bool = true) -> [Step] {
        var steps: [Step] = []
        var active = sessionActive
        for i in 0...44 {
            let t = 1_000 + 10 * Double(i)
            let percent = 25 - 0.5 * Double(i)
            let actions = watch.take(BatteryReading(t: t, percent: percent, volts: 3.7, charging: false),
                                     sessionActive: active)
            // The service stops the session when told to: it is no longer active.
            if actions.contains(.stopSession) { active = false }
            steps.append((t, percent, actions))
        }
        return steps
    }

    static func acted(_ steps: [Step]) -> [Step] { steps.filter { !$0.actions.isEmpty } }

    @Test("a falling charge is told at 20 % and at 10 %, once each")
    func warnings() throws {
        var watch = BatteryWatch(settings: BatterySettings())
        let steps = Self.falling(&watch, sessionActive: false)
        let warnings = steps.flatMap { step in
            step.actions.compactMap { action -> Double? in
                if case let .warn(percent) = action { return percent }
                return nil
            }
        }
        #expect(warnings == [20, 10])
        let at20 = try #require(steps.first { $0.actions.contains(.warn(percent: 20)) })
        #expect(at20.t == 1_100)
        // Hovering at a level tells it no more: it is told again only well above it.
        #expect(watch.take(BatteryReading(t: 1_460, percent: 3.5, volts: 3.6), sessionActive: false).isEmpty)
    }

    @Test("a charge hovering about a level is told once; a charger re-arms it")
    func hovering() {
        var watch = BatteryWatch(settings: BatterySettings())
        var told: [[BatteryWatch.Action]] = []
        for (i, p) in [21.0, 20.0, 20.5, 19.5, 20.5, 20.0].enumerated() {
            told.append(watch.take(BatteryReading(t: 10 * Double(i), percent: p, volts: 3.7), sessionActive: true))
        }
        #expect(told.flatMap { $0 } == [.warn(percent: 20)])
        _ = watch.take(BatteryReading(t: 60, percent: 20.5, volts: 4.1, charging: true), sessionActive: true)
        #expect(watch.take(BatteryReading(t: 70, percent: 20, volts: 3.7, charging: false), sessionActive: true)
            == [.warn(percent: 20)])
    }

    @Test("critical for 30 s: the session is stopped and, with poweroff set, the Pi powered off; once")
    func critical() throws {
        var settings = BatterySettings()
        settings.powerOff = true
        var watch = BatteryWatch(settings: settings)
        let all = Self.falling(&watch)
        let steps = Self.acted(all)
        let last = try #require(steps.last)
        // First at or below 5 % at t 1400; held 30 s at 1430.
        #expect(last.t == 1_430)
        #expect(last.actions == [.stopSession, .powerOff])
        #expect(steps.filter { $0.actions.contains(.stopSession) }.count == 1)
        #expect(steps.filter { $0.actions.contains(.powerOff) }.count == 1)
    }

    @Test("no session: no stop; poweroff unset: no power-off")
    func criticalWithout() throws {
        var idle = BatteryWatch(settings: BatterySettings())
        let idleSteps = Self.falling(&idle, sessionActive: false)
        #expect(!idleSteps.contains { $0.actions.contains(.stopSession) })
        var settings = BatterySettings()
        settings.powerOff = true
        var idleOff = BatteryWatch(settings: settings)
        let offSteps = Self.falling(&idleOff, sessionActive: false)
        let off = try #require(Self.acted(offSteps).last)
        #expect(off.t == 1_430)
        #expect(off.actions == [.powerOff])
        var recording = BatteryWatch(settings: BatterySettings())
        let stopSteps = Self.falling(&recording)
        let stop = try #require(Self.acted(stopSteps).last)
        #expect(stop.t == 1_430)
        #expect(stop.actions == [.stopSession])
    }

    @Test("a session started after the critical level was reached while idle is still stopped")
    func criticalBeforeTheSession() {
        var watch = BatteryWatch(settings: BatterySettings())
        var t = 0.0
        for p in [6.0, 5.0, 4.8, 4.7, 4.6] {
            _ = watch.take(BatteryReading(t: t, percent: p, volts: 3.5), sessionActive: false)
            t += 10
        }
        // The wearer starts a session on a cell at its critical level: it must be stopped and saved too.
        var actions: [BatteryWatch.Action] = []
        for p in [4.5, 4.4, 4.3, 4.2, 4.1] {
            actions += watch.take(BatteryReading(t: t, percent: p, volts: 3.5), sessionActive: true)
            t += 10
        }
        // The alarm was raised while idle; the session is stopped at its first reading all the same.
        #expect(actions.first == .stopSession, "\(actions)")
    }

    @Test("a dip shorter than battery.confirm_s stops nothing")
    func shortDip() {
        var settings = BatterySettings()
        settings.confirm = 60
        var watch = BatteryWatch(settings: settings)
        var actions: [BatteryWatch.Action] = []
        for (i, p) in [6.0, 5.0, 4.5, 4.5, 6.0, 6.5, 6.0].enumerated() {
            actions += watch.take(BatteryReading(t: 10 * Double(i), percent: p, volts: 3.5), sessionActive: true)
        }
        #expect(!actions.contains(.stopSession))
    }

    @Test("with battery.critical_volts the voltage decides, whatever the percentage")
    func criticalVolts() {
        var settings = BatterySettings()
        settings.criticalVolts = 3.3
        var watch = BatteryWatch(settings: settings)
        var last: [BatteryWatch.Action] = []
        for i in 0...3 {
            last = watch.take(BatteryReading(t: 10 * Double(i), percent: 30, volts: 3.25), sessionActive: true)
        }
        #expect(last == [.stopSession])
        #expect(watch.status(BatteryServiceStatus(source: "auto"))?.critical == "3.30 V")
    }

    // MARK: - STATUS.battery

    static func service() -> BatteryServiceStatus {
        var s = BatteryServiceStatus(source: "emulated:MAX17048")
        s.health = .ok
        s.device = "MAX17048 at 0x36 on (emulated)"
        s.counters.samples = 5
        s.counters.busErrors = 2
        s.counters.initializations = 2
        s.lastError = "no acknowledge from I2C address 0x36 (device absent?)"
        return s
    }

    @Test("STATUS.battery: null without a gauge; before a reading, the service's side only")
    func statusBeforeReadings() throws {
        let watch = BatteryWatch(settings: BatterySettings())
        #expect(watch.status(nil) == nil)
        let reply = try #require(watch.status(Self.service()))
        #expect(reply.health == .ok)
        #expect(reply.percent == nil)
        #expect(reply.volts == nil)
        #expect(reply.minutesLeft == nil)
        #expect(reply.charging == nil)
        #expect(reply.critical == "5 %")
        #expect(reply.source == "emulated:MAX17048")
        #expect(reply.device == "MAX17048 at 0x36 on (emulated)")
        #expect(reply.readings == 5)
        #expect(reply.busErrors == 2)
        #expect(reply.reinitializations == 1, "the first bring-up is no re-initialisation")
        #expect(reply.lastError == "no acknowledge from I2C address 0x36 (device absent?)")
        var lost = Self.service()
        lost.health = .lost
        lost.counters.initializations = 0
        let lostReply = try #require(watch.status(lost))
        #expect(lostReply.health == .lost)
        #expect(lostReply.reinitializations == 0)
    }

    @Test("STATUS.battery after readings: the charge, the voltage, minutes left; what the gauge does not measure is null")
    func statusAfterReadings() throws {
        var watch = BatteryWatch(settings: BatterySettings())
        _ = Self.falling(&watch)
        let reply = try #require(watch.status(Self.service()))
        #expect(reply.percent == 3)
        #expect(reply.volts == 3.7)
        #expect(reply.currentA == nil, "a NaN current is no current")
        #expect(reply.charging == false)
        let line = ReplyEncoder.line(reply)
        #expect(line.contains(#""current_a":null"#), "\(line)")
        #expect(!line.contains("nan") && !line.contains("NaN"), "\(line)")

        var draining = BatteryWatch(settings: BatterySettings())
        for i in 0...30 {
            let percent = 60 - 0.05 * Double(i)
            _ = draining.take(BatteryReading(t: 20 * Double(i), percent: percent, volts: 3.8, current: 0.8), sessionActive: true)
        }
        let drainingReply = try #require(draining.status(Self.service()))
        let minutes = try #require(drainingReply.minutesLeft)
        // 0.05 % every 20 s is 0.15 % a minute: from 58.5 % to 5 %, 357 minutes.
        let expected = (58.5 - 5) / 0.15
        #expect(abs(minutes - expected) < 1, "\(minutes) minutes")
        #expect(drainingReply.currentA == 0.8)
        let nanVolts = BatteryReading(t: 620, percent: 58.4, volts: .nan, current: .nan)
        _ = draining.take(nanVolts, sessionActive: true)
        let after = try #require(draining.status(Self.service()))
        #expect(after.volts == nil)
        #expect(after.currentA == nil)
    }
}

/// The `battery.*` keys of moonrunner.yaml and their place in `?CONFIG`.
@Suite("Configuration: battery")
struct BatteryConfigTests {
    @Test("the defaults")
    func defaults() {
        let b = DaemonConfig().battery
        #expect(b == BatterySettings())
        #expect(b.source == "auto")
        #expect(b.powerSupplyDir == "/sys/class/power_supply")
        #expect(b.interval == 10)
        #expect(b.warnPercent == [20, 10])
        #expect(b.criticalPercent == 5)
        #expect(b.criticalVolts == nil)
        #expect(b.confirm == 30)
        #expect(b.capacityMAh == 2000)
        #expect(b.powerOff == false)
        #expect(b.powerOffDelay == 15)
        #expect(b.policy.critical == .percent(5))
    }

    @Test("each battery key is applied")
    func applies() throws {
        let c = try ConfigLoader.parse(yaml: """
            battery:
              source: "i2c:/dev/i2c-1@0x41"
              power_supply_dir: /tmp/power_supply
              interval_s: 30
              warn_percent: [10, 25, 10]
              critical_percent: 3
              critical_volts: 3.3
              confirm_s: 60
              capacity_mah: 3000
              poweroff: true
              poweroff_delay_s: 20
            """)
        let b = c.battery
        #expect(b.source == "i2c:/dev/i2c-1@0x41")
        #expect(b.powerSupplyDir == "/tmp/power_supply")
        #expect(b.interval == 30)
        #expect(b.warnPercent == [25, 10], "distinct, from the highest down")
        #expect(b.criticalPercent == 3)
        #expect(b.criticalVolts == 3.3)
        #expect(b.confirm == 60)
        #expect(b.capacityMAh == 3000)
        #expect(b.powerOff)
        #expect(b.powerOffDelay == 20)
        #expect(b.policy.critical == .volts(3.3))
        #expect(b.policy.capacityAh == 3)
        #expect(b.policy.confirm == 60)
        #expect(try DaemonConfigValidator.batterySpec(c) == .i2c(path: "/dev/i2c-1", address: 0x41))
        let none = try ConfigLoader.parse(yaml: "battery: {critical_volts: null, warn_percent: [], source: none}")
        #expect(none.battery.criticalVolts == nil)
        #expect(none.battery.warnPercent.isEmpty)
        #expect(try DaemonConfigValidator.batterySpec(none) == BatterySourceSpec.none)
        for text in ["auto", "power_supply", "power_supply:/sys/class/power_supply/BAT0", "emulated:MAX17048,percent=32"] {
            let e = try ConfigLoader.parse(yaml: "battery: {source: \"\(text)\"}")
            #expect(e.battery.source == text)
        }
    }

    @Test("a bad battery value names the battery key, the value and what is allowed", arguments: [
        ("battery: {critical_volts: 5}", "battery.critical_volts", "2.8 to 3.9"),
        ("battery: {critical_volts: 2.5}", "battery.critical_volts", "2.8 to 3.9"),
        ("battery: {warn_percent: [120]}", "battery.warn_percent", "each 1 to 99"),
        ("battery: {warn_percent: 20}", "battery.warn_percent", "a list of charges"),
        ("battery: {warn_percent: [20, x]}", "battery.warn_percent", "a list of charges"),
        ("battery: {source: \"i2c:/dev/i2c-1@0x37\"}", "battery.source", "not 0x37"),
        ("battery: {source: \"emulated:MAX17048,fault=overflow@5\"}", "battery.source", "fault=overflow@5"),
        ("battery: {source: \"emulated:BQ27441\"}", "battery.source", "MAX17048"),
        ("battery: {source: \"power_supply:BAT0\"}", "battery.source", "folder"),
        ("battery: {source: \"\"}", "battery.source", "non-empty"),
        ("battery: {source: ups}", "battery.source", "auto, none, power_supply"),
        ("battery: {power_supply_dir: sys/class}", "battery.power_supply_dir", "absolute path"),
        ("battery: {interval_s: 0}", "battery.interval_s", "1 to 600"),
        ("battery: {critical_percent: 60}", "battery.critical_percent", "0 to 50"),
        ("battery: {confirm_s: -1}", "battery.confirm_s", "0 to 600"),
        ("battery: {capacity_mah: 50}", "battery.capacity_mah", "100 to 100000"),
        ("battery: {poweroff: maybe}", "battery.poweroff", "true or false"),
        ("battery: {poweroff_delay_s: 301}", "battery.poweroff_delay_s", "0 to 300"),
        ("battery: {sauce: auto}", "battery.sauce", "did you mean battery.source"),
    ])
    func badValues(yaml: String, key: String, allowed: String) {
        do {
            _ = try ConfigLoader.parse(yaml: yaml)
            Issue.record("accepted \(yaml)")
        } catch {
            #expect(error.key == key, "\(error)")
            #expect(error.allowed.contains(allowed), "\(error)")
        }
    }

    @Test("a source set past the loader is refused at start, naming battery.source")
    func validator() {
        var c = DaemonConfig()
        c.battery.source = "i2c:/dev/i2c-1@0x37"
        do {
            _ = try DaemonConfigValidator.batterySpec(c)
            Issue.record("accepted \(c.battery.source)")
        } catch {
            #expect(error.key == "battery.source", "\(error)")
            #expect(error.allowed.contains("0x37"), "\(error)")
        }
    }

    @Test("?CONFIG has a battery object keyed like the file")
    func summary() throws {
        guard case let .object(members) = ConfigSummary.json(DaemonConfig()) else {
            Issue.record("?CONFIG is not an object")
            return
        }
        let battery = try #require(members["battery"])
        let expected = JSONValue.object([
            "source": .string("auto"), "power_supply_dir": .string("/sys/class/power_supply"), "interval_s": .number(10),
            "warn_percent": .array([.number(20), .number(10)]), "critical_percent": .number(5), "critical_volts": .null,
            "confirm_s": .number(30), "capacity_mah": .number(2000), "poweroff": .bool(false), "poweroff_delay_s": .number(15),
        ])
        #expect(battery == expected)
        var c = DaemonConfig()
        c.battery.criticalVolts = 3.4
        c.battery.powerOff = true
        guard case let .object(set) = ConfigSummary.json(c), case let .object(b)? = set["battery"] else {
            Issue.record("?CONFIG has no battery object")
            return
        }
        #expect(b["critical_volts"] == .number(3.4))
        #expect(b["poweroff"] == .bool(true))
        let keys = Set(b.keys.map { "battery." + $0 })
        #expect(keys == Set(ConfigLoader.knownKeys.filter { $0.hasPrefix("battery.") }), "one member per key")
    }
}
