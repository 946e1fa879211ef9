import Foundation
import MoonRunnerConfig
import MoonRunnerCore
import Testing
@testable import MoonRunnerDaemon

@Suite("Configuration")
struct ConfigLoaderTests {
    static let repoConfig = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/moonrunner.yaml").path

    @Test("the shipped config file documents every key, and its values are the defaults")
    func shippedFile() throws {
        let c = try ConfigLoader.load(path: Self.repoConfig)
        #expect(c == DaemonConfig())
        let text = try String(contentsOfFile: Self.repoConfig, encoding: .utf8)
        for key in ConfigLoader.knownKeys {
            let leaf = String(key.split(separator: ".").last ?? "")
            #expect(text.contains("\(leaf):"), "config/moonrunner.yaml does not document \(key)")
        }
    }

    @Test("moonrunner.yaml(5) documents every key the validator knows, and no key it does not")
    func manPage() throws {
        let page = URL(fileURLWithPath: Self.repoConfig).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("man/moonrunner.yaml.5").path
        let text = try String(contentsOfFile: page, encoding: .utf8)
        // Each key is the head of an entry in the page's KEYS lists: `.It Sy store.retention_days`.
        // The web: keys are moonrunner-web's (MoonRunnerWebTests checks them against its reader).
        let documented = Set(text.split(separator: "\n").filter { $0.hasPrefix(".It Sy ") }
            .map { String($0.dropFirst(".It Sy ".count)).trimmingCharacters(in: .whitespaces) })
            .filter { !$0.hasPrefix("web.") && !$0.hasPrefix("upload.") }
        for key in ConfigLoader.knownKeys {
            #expect(documented.contains(key), "man/moonrunner.yaml.5 does not document \(key)")
        }
        #expect(documented.subtracting(ConfigLoader.knownKeys).isEmpty,
                "man/moonrunner.yaml.5 documents keys the daemon refuses: \(documented.subtracting(ConfigLoader.knownKeys))")
    }

    @Test("the web: section is moonrunner-web's: the daemon leaves it to the web app's own strict reader")
    func webSection() throws {
        let c = try ConfigLoader.parse(yaml: """
            units: imperial
            web: {listen: "127.0.0.1:9000", whatever_the_web_app_says: 1}
            """)
        #expect(c.units == .imperial)
        #expect(throws: ConfigError.self) { _ = try ConfigLoader.parse(yaml: "wbe: {listen: x}") }
    }

    @Test("values are applied")
    func applies() throws {
        let c = try ConfigLoader.parse(yaml: """
            gpsd: {host: 10.0.0.1, port: 3000}
            imu: {source: "replay:/tmp/x.csv,speed=5", rate_hz: 50}
            store: {commit_interval_s: 0.5}
            units: imperial
            steps: {detector: seed}
            socket: {mode: "0640"}
            """)
        #expect(c.gpsdHost == "10.0.0.1" && c.gpsdPort == 3000)
        #expect(c.imuRateHz == 50 && c.commitInterval == 0.5)
        #expect(c.units == .imperial && c.detector == .seed && c.socketMode == 0o640)
        #expect(c.engineConfig.detector == .seed)
    }

    @Test("baro.source: none by default, i2c and replay accepted, --baro overrides")
    func baroSource() throws {
        #expect(DaemonConfig().baroSource == "none")
        let c = try ConfigLoader.parse(yaml: "baro: {source: \"i2c:/dev/i2c-1@0x77\"}")
        #expect(c.baroSource == "i2c:/dev/i2c-1@0x77")
        #expect(try DaemonConfigValidator.baroSpec(c) == .i2c(path: "/dev/i2c-1", address: 0x77))
        let o = try ConfigOverrides(baro: "replay:/tmp/b.csv,speed=4").apply(to: c)
        #expect(o.baroSource == "replay:/tmp/b.csv,speed=4")
        #expect(try DaemonConfigValidator.replaySpeed(o) == 4)
        #expect(throws: ConfigError.self) { _ = try ConfigOverrides(baro: "i2c:/dev/i2c-1@0x68").apply(to: c) }
    }

    @Test("two replays on one clock must agree on the speed; the key is named")
    func replaySpeeds() throws {
        var c = DaemonConfig()
        c.imuSource = "replay:/tmp/i.csv,speed=10"
        c.baroSource = "replay:/tmp/b.csv,speed=4"
        do {
            _ = try DaemonConfigValidator.replaySpeed(c)
            Issue.record("mismatched speeds accepted")
        } catch {
            #expect(error.key == "baro.source" && error.description.contains("speed=10"))
        }
        c.baroSource = "replay:/tmp/b.csv,speed=10"
        #expect(try DaemonConfigValidator.replaySpeed(c) == 10)
        c.baroSource = "replay:/nonexistent/b.csv,speed=10"
        #expect(throws: ConfigError.self) { try DaemonConfigValidator.validateAtStart(c) }
    }

    @Test("each kind of bad value names the key, the value and what is allowed", arguments: [
        ("baro: {source: \"i2c:/dev/i2c-1@0x68\"}", "baro.source", "0x76 or 0x77"),
        ("baro: {source: \"replay:x.csv,fault=overflow@3\"}", "baro.source", "does not apply to a barometer"),
        ("baro: {source: bmp280}", "baro.source", "none, i2c"),
        ("gpsd: {port: 0}", "gpsd.port", "1 to 65535"),
        ("gpsd: {port: \"abc\"}", "gpsd.port", "integer"),
        ("gpsd: {host: \"\"}", "gpsd.host", "non-empty"),
        ("imu: {gyro_range_dps: 300}", "imu.gyro_range_dps", "250, 500, 1000"),
        ("imu: {source: \"usb:1\"}", "imu.source", "replay:"),
        ("imu: {source: \"i2c:/dev/i2c-1@0x1ff\"}", "imu.source", "address"),
        ("store: {commit_interval_s: -1}", "store.commit_interval_s", "0.1 to 60"),
        ("units: parsecs", "units", "metric, imperial"),
        ("steps: {detector: magic}", "steps.detector", "adaptive"),
        ("auto_pause: {enabled: 3}", "auto_pause.enabled", "true or false"),
        ("socket: {mode: \"0777\"}", "socket.mode", "others"),
        ("socket: {mode: \"rw\"}", "socket.mode", "octal"),
        ("socket: {path: \"/\(String(repeating: "x", count: 120))\"}", "socket.path", "108"),
        ("body_mass_kg: 2", "body_mass_kg", "20 to 300"),
        ("log_level: loud", "log_level", "debug"),
        ("gps_filter: {max_speed: 3}", "gps_filter.max_speed", "unknown key"),
        ("- a\n- b", "(file)", "mapping"),
        ("course: {off_course_m: 5}", "course.off_course_m", "10 to 1000"),
        ("course: {to_go_alerts_m: 1000}", "course.to_go_alerts_m", "a list of distances"),
        ("course: {to_go_alerts_m: [1000, -5]}", "course.to_go_alerts_m", "a list of distances"),
        ("course: {max_upload_kb: 0}", "course.max_upload_kb", "1 to 65536"),
        ("destination: {arrive_radius_m: 0}", "destination.arrive_radius_m", "1 to 10000"),
    ])
    func badValues(yaml: String, key: String, allowed: String) {
        do {
            _ = try ConfigLoader.parse(yaml: yaml)
            Issue.record("accepted \(yaml)")
        } catch {
            #expect(error.key == key)
            #expect(error.description.contains(key))
            #expect(error.description.contains(allowed), "\(error.description)")
        }
    }

    @Test("each bad hr: value names its key, the value and what is allowed", arguments: [
        ("hr: {source: \"ble:AA:BB:CC\"}", "hr.source", "is not a Bluetooth address such as AA:BB:CC:DD:EE:FF"),
        ("hr: {source: \"ble:GG:BB:CC:DD:EE:FF\"}", "hr.source", "is not a Bluetooth address"),
        ("hr: {source: polar}", "hr.source", "none, ble:auto, ble:AA:BB:CC:DD:EE:FF or replay:FILE[,speed=N]"),
        ("hr: {source: \"replay:x.csv,fault=eio@3\"}", "hr.source", "takes speed=N only"),
        ("hr: {source: \"\"}", "hr.source", "non-empty"),
        ("hr: {zone_model: heart}", "hr.zone_model", "max (percent of maximum), reserve (Karvonen) or bpm"),
        ("hr: {zone_bounds: [60, 70, 80]}", "hr.zone_bounds", "four increasing numbers"),
        ("hr: {zone_bounds: [60, 80, 70, 90]}", "hr.zone_bounds", "four increasing numbers"),
        ("hr: {zone_bounds: [60, 70, 80, x]}", "hr.zone_bounds", "four increasing numbers"),
        ("hr: {max_bpm: 300}", "hr.max_bpm", "100 to 230"),
        ("hr: {resting_bpm: 10}", "hr.resting_bpm", "25 to 120"),
        ("hr: {age: 200}", "hr.age", "5 to 110"),
        ("hr: {sex: other}", "hr.sex", "male"),
        ("hr: {strap: polar}", "hr.strap", "unknown key"),
    ])
    func badHeartRateValues(yaml: String, key: String, allowed: String) {
        do {
            _ = try ConfigLoader.parse(yaml: yaml)
            Issue.record("accepted \(yaml)")
        } catch {
            #expect(error.key == key)
            #expect(error.description.contains(key))
            #expect(error.description.contains(allowed), "\(error.description)")
        }
    }

    @Test("hr: values that only fail together, and --hr, are refused at start naming the key")
    func heartRateAtStart() throws {
        var c = try ConfigLoader.parse(yaml: "hr: {zone_bounds: [120, 140, 160, 180]}")
        do {
            try DaemonConfigValidator.validateAtStart(c)
            Issue.record("bpm bounds accepted as percentages")
        } catch {
            #expect(error.key == "hr.zone_bounds" && error.description.contains("percentages up to 100"))
        }
        c = try ConfigLoader.parse(yaml: "hr: {max_bpm: 120, resting_bpm: 115}")
        do {
            try DaemonConfigValidator.validateAtStart(c)
            Issue.record("a maximum below resting + 10 accepted")
        } catch {
            #expect(error.key == "hr.max_bpm" && error.description.contains("at least 10 bpm above"))
        }
        c = try ConfigOverrides(hr: "replay:/nonexistent/h.csv").apply(to: DaemonConfig())
        do {
            try DaemonConfigValidator.validateAtStart(c)
            Issue.record("an unreadable trace accepted")
        } catch {
            #expect(error.key == "hr.source" && error.description.contains("a readable heart-rate trace file"))
        }
        do {
            _ = try ConfigOverrides(hr: "ble:xx").apply(to: DaemonConfig())
            Issue.record("--hr ble:xx accepted")
        } catch {
            #expect(error.key == "--hr")
        }
        c.imuSource = "replay:/tmp/i.csv,speed=10"
        c.hrSource = "replay:/tmp/h.csv,speed=4"
        do {
            _ = try DaemonConfigValidator.replaySpeed(c)
            Issue.record("mismatched speeds accepted")
        } catch {
            #expect(error.key == "hr.source" && error.description.contains("speed=10"))
        }
    }

    @Test("course and destination keys reach the engine")
    func navigation() throws {
        let c = try ConfigLoader.parse(yaml: """
            course: {off_course_m: 80, to_go_alerts_m: [500, 2000, 500], finish_m: 25}
            destination: {arrive_radius_m: 12}
            """)
        let e = c.engineConfig.navigation
        #expect(e.matcher.offCourseDistance == 80 && e.matcher.finishDistance == 25 && e.arriveRadius == 12)
        #expect(e.toGoAlerts == [2000, 500])
        #expect(try ConfigLoader.parse(yaml: "course: {to_go_alerts_m: []}").courseToGoAlerts.isEmpty)
    }

    @Test("flags override the file")
    func overrides() throws {
        let base = try ConfigLoader.parse(yaml: "gpsd: {port: 3000}\nstate_dir: /a")
        let c = try ConfigOverrides(stateDir: "/b", gpsd: "127.0.0.1:4000", imu: "replay:/x.csv").apply(to: base)
        #expect(c.stateDir == "/b" && c.gpsdPort == 4000 && c.imuSource == "replay:/x.csv")
        // --imu none: a GPS-only set-up is accepted, and validated like any other source.
        let gpsOnly = try ConfigOverrides(imu: "none").apply(to: base)
        #expect(gpsOnly.imuSource == "none")
        try DaemonConfigValidator.validateAtStart(gpsOnly)
        #expect(throws: ConfigError.self) { try ConfigOverrides(gpsd: "127.0.0.1").apply(to: base) }
    }
}
