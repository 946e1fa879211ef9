import Foundation
import MoonRunnerConfig
import MoonRunnerCore
import MoonRunnerSensors
import MoonRunnerYAML

/// Reads `moonrunner.yaml` into a `DaemonConfig`, strictly: unknown keys,
/// wrong types and out-of-range values are errors that name the key.
public enum ConfigLoader {
    /// Every key the file may hold, with how to apply it.
    private static let keys: [String: @Sendable (inout DaemonConfig, String, Any) throws(ConfigError) -> Void] = [
        "gpsd.host": { c, k, v throws(ConfigError) in c.gpsdHost = try string(k, v, nonEmpty: true) },
        "gpsd.port": { c, k, v throws(ConfigError) in c.gpsdPort = try int(k, v, 1...65535) },
        "imu.source": { c, k, v throws(ConfigError) in c.imuSource = try imuSource(k, v) },
        "imu.rate_hz": { c, k, v throws(ConfigError) in c.imuRateHz = try int(k, v, 25...1000) },
        "imu.accel_range_g": { c, k, v throws(ConfigError) in c.imuAccelRangeG = try oneOf(k, v, [2, 4, 8, 16]) },
        "imu.gyro_range_dps": { c, k, v throws(ConfigError) in c.imuGyroRangeDps = try oneOf(k, v, [250, 500, 1000, 2000]) },
        "baro.source": { c, k, v throws(ConfigError) in c.baroSource = try baroSource(k, v) },
        "elevation.dem_dir": { c, k, v throws(ConfigError) in
            let s = try string(k, v, nonEmpty: false)
            guard !s.contains("\0"), s.isEmpty || s.hasPrefix("/") else {
                throw ConfigError(key: k, value: s, allowed: "an absolute path to a folder, or \"\" for none")
            }
            c.demDir = s
        },
        "hr.source": { c, k, v throws(ConfigError) in c.hrSource = try hrSource(k, v) },
        "hr.zone_model": { c, k, v throws(ConfigError) in
            let s = try string(k, v, nonEmpty: true)
            // "%max" and "%reserve" (quoted in YAML) are the same models.
            let name = s.hasPrefix("%") ? String(s.dropFirst()) : s
            guard let m = HeartRateProfile.ZoneModel(rawValue: name) else {
                throw ConfigError(key: k, value: s, allowed: "max (percent of maximum), reserve (Karvonen) or bpm")
            }
            c.hrZoneModel = m
        },
        "hr.zone_bounds": { c, k, v throws(ConfigError) in c.hrZoneBounds = try zoneBounds(k, v) },
        "hr.max_bpm": { c, k, v throws(ConfigError) in
            c.hrMaxBPM = v is YAMLNull ? nil : try double(k, v, 100...230)
        },
        "hr.resting_bpm": { c, k, v throws(ConfigError) in c.hrRestingBPM = try double(k, v, 25...120) },
        "hr.age": { c, k, v throws(ConfigError) in c.hrAge = try double(k, v, 5...110) },
        "hr.sex": { c, k, v throws(ConfigError) in c.hrSex = try enumValue(k, v, HeartRateProfile.Sex.self) },
        "state_dir": { c, k, v throws(ConfigError) in c.stateDir = try path(k, v) },
        "socket.path": { c, k, v throws(ConfigError) in c.socketPath = try socketPath(k, v) },
        "socket.mode": { c, k, v throws(ConfigError) in c.socketMode = try mode(k, v) },
        "socket.control_group": { c, k, v throws(ConfigError) in c.controlGroup = try string(k, v, nonEmpty: false) },
        "socket.max_line_bytes": { c, k, v throws(ConfigError) in c.maxLineBytes = try int(k, v, 256...1_048_576) },
        "socket.max_clients": { c, k, v throws(ConfigError) in c.maxClients = try int(k, v, 1...4096) },
        "socket.idle_timeout_s": { c, k, v throws(ConfigError) in c.idleTimeout = try double(k, v, 1...86_400) },
        "socket.max_requests_per_s": { c, k, v throws(ConfigError) in c.maxRequestsPerSecond = try int(k, v, 1...100_000) },
        "store.commit_interval_s": { c, k, v throws(ConfigError) in c.commitInterval = try double(k, v, 0.1...60) },
        "store.consolidate_interval_s": { c, k, v throws(ConfigError) in
            c.consolidateInterval = try double(k, v, 10...86_400)
        },
        "store.recovery_window_s": { c, k, v throws(ConfigError) in c.recoveryWindow = try double(k, v, 0...604_800) },
        "store.retention_days": { c, k, v throws(ConfigError) in c.retentionDays = try int(k, v, 0...36_500) },
        "store.raw_imu_capture_mb": { c, k, v throws(ConfigError) in c.rawIMUCaptureMB = try double(k, v, 0...10_000) },
        "session.activity": { c, k, v throws(ConfigError) in c.defaultActivity = try enumValue(k, v, Activity.self) },
        "units": { c, k, v throws(ConfigError) in c.units = try enumValue(k, v, UnitSystem.self) },
        "body_mass_kg": { c, k, v throws(ConfigError) in c.bodyMassKg = try double(k, v, 20...300) },
        "steps.detector": { c, k, v throws(ConfigError) in c.detector = try enumValue(k, v, StepDetectorKind.self) },
        "gps_filter.max_accuracy_m": { c, k, v throws(ConfigError) in c.gpsMaxAccuracy = try double(k, v, 1...1000) },
        "gps_filter.max_age_s": { c, k, v throws(ConfigError) in c.gpsMaxAge = try double(k, v, 0.5...120) },
        "gps_filter.max_speed_mps": { c, k, v throws(ConfigError) in c.gpsMaxSpeed = try double(k, v, 1...100) },
        "auto_pause.enabled": { c, k, v throws(ConfigError) in c.autoPauseEnabled = try bool(k, v) },
        "auto_pause.dwell_s": { c, k, v throws(ConfigError) in c.autoPauseDwell = try double(k, v, 1...120) },
        "auto_pause.resume_steps": { c, k, v throws(ConfigError) in c.autoPauseResumeSteps = try int(k, v, 1...4) },
        "auto_pause.move_speed_mps": { c, k, v throws(ConfigError) in c.autoPauseMoveSpeed = try double(k, v, 0.2...10) },
        "auto_pause.gyro_threshold_rad_s": { c, k, v throws(ConfigError) in c.autoPauseGyroThreshold = try double(k, v, 0.1...30) },
        "course.off_course_m": { c, k, v throws(ConfigError) in c.courseOffDistance = try double(k, v, 10...1000) },
        "course.to_go_alerts_m": { c, k, v throws(ConfigError) in c.courseToGoAlerts = try distances(k, v) },
        "course.finish_m": { c, k, v throws(ConfigError) in c.courseFinishDistance = try double(k, v, 1...500) },
        "course.max_upload_kb": { c, k, v throws(ConfigError) in c.courseMaxUploadKB = try int(k, v, 1...65_536) },
        "destination.arrive_radius_m": { c, k, v throws(ConfigError) in c.arriveRadius = try double(k, v, 1...10_000) },
        "hooks.on_transition": { c, k, v throws(ConfigError) in c.hookCommand = try string(k, v, nonEmpty: false) },
        "hooks.timeout_s": { c, k, v throws(ConfigError) in c.hookTimeout = try double(k, v, 0.1...300) },
        "log_level": { c, k, v throws(ConfigError) in
            c.logLevel = try oneOfStrings(k, v, ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        },
    ]

    /// The section of the file that belongs to moonrunner-web (`WebConfigReader`), not the daemon.
    public static let webSection = "web."
    /// The section of the file that belongs to moonrunner-upload (`UploadConfigReader`).
    public static let uploadSection = "upload."

    /// All documented keys, sorted (for messages and the config file test).
    public static var knownKeys: [String] { (Array(keys.keys) + Array(batteryKeys.keys)).sorted() }

    /// Loads a file on top of the defaults.
    public static func load(path: String, into base: DaemonConfig = DaemonConfig()) throws(ConfigError) -> DaemonConfig {
        try apply(ConfigFile.mapping(at: path), to: base)
    }

    public static func parse(yaml text: String, into base: DaemonConfig = DaemonConfig(),
                             source: String = "config") throws(ConfigError) -> DaemonConfig {
        try apply(ConfigFile.mapping(text, source: source), to: base)
    }

    /// Every key of the file's mapping (nil: an empty file) checked and applied on top of `base`.
    private static func apply(_ map: [String: Any]?, to base: DaemonConfig) throws(ConfigError) -> DaemonConfig {
        var config = base
        guard let map else { return config }
        var flat: [(String, Any)] = []
        flatten(map, prefix: "", into: &flat)
        for (key, value) in flat.sorted(by: { $0.0 < $1.0 }) {
            // `web:` is moonrunner-web's section, checked as strictly by its own reader.
            if key.hasPrefix(webSection) || key.hasPrefix(uploadSection) { continue }
            guard let apply = keys[key] ?? batteryKeys[key] else {
                let hint = ConfigChecks.nearest(key, in: knownKeys)
                throw ConfigError(key: key, value: describe(value),
                                  allowed: "unknown key (did you mean \(hint)?)")
            }
            try apply(&config, key, value)
        }
        return config
    }

    private static func flatten(_ map: [String: Any], prefix: String, into out: inout [(String, Any)]) {
        ConfigChecks.flatten(map, prefix: prefix, into: &out)
    }

    // MARK: Value checks (shared with the announcer: ConfigChecks)

    static func describe(_ v: Any) -> String { ConfigChecks.describe(v) }

    static func string(_ k: String, _ v: Any, nonEmpty: Bool) throws(ConfigError) -> String {
        try ConfigChecks.string(k, v, nonEmpty: nonEmpty)
    }

    static func int(_ k: String, _ v: Any, _ range: ClosedRange<Int>) throws(ConfigError) -> Int {
        try ConfigChecks.int(k, v, range)
    }

    static func double(_ k: String, _ v: Any, _ range: ClosedRange<Double>) throws(ConfigError) -> Double {
        try ConfigChecks.double(k, v, range)
    }

    /// A list of distinct distances in metres (`[1000, 500]`), each 1–1000000; `[]` for none.
    static func distances(_ k: String, _ v: Any) throws(ConfigError) -> [Double] {
        let allowed = "a list of distances in metres such as [1000, 500] (each 1 to 1000000), or [] for none"
        guard let list = v as? [Any] else { throw ConfigError(key: k, value: describe(v), allowed: allowed) }
        var out: [Double] = []
        for item in list {
            guard let d = try? double(k, item, 1...1_000_000) else { throw ConfigError(key: k, value: describe(v), allowed: allowed) }
            if !out.contains(d) { out.append(d) }
        }
        return out.sorted(by: >)
    }

    static func bool(_ k: String, _ v: Any) throws(ConfigError) -> Bool { try ConfigChecks.bool(k, v) }

    static func oneOf(_ k: String, _ v: Any, _ allowed: [Int]) throws(ConfigError) -> Int {
        try ConfigChecks.oneOf(k, v, allowed)
    }

    static func oneOfStrings(_ k: String, _ v: Any, _ allowed: [String]) throws(ConfigError) -> String {
        try ConfigChecks.oneOfStrings(k, v, allowed)
    }

    static func enumValue<E: RawRepresentable & CaseIterable>(_ k: String, _ v: Any, _ e: E.Type) throws(ConfigError) -> E
    where E.RawValue == String {
        try ConfigChecks.enumValue(k, v, e)
    }

    static func path(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try string(k, v, nonEmpty: true)
        guard !s.contains("\0") else { throw ConfigError(key: k, value: s, allowed: "a file system path") }
        return s
    }

    static func socketPath(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try path(k, v)
        // sockaddr_un.sun_path holds 108 bytes including the terminator.
        guard s.utf8.count < 108 else {
            throw ConfigError(key: k, value: s, allowed: "a path shorter than 108 bytes (a Unix socket limit)")
        }
        return s
    }

    static func mode(_ k: String, _ v: Any) throws(ConfigError) -> Int {
        let text: String
        if let s = v as? String { text = s } else if let i = v as? Int { text = String(i) } else { text = describe(v) }
        let digits = text.hasPrefix("0o") ? String(text.dropFirst(2)) : text
        guard !digits.isEmpty, digits.count <= 4, let m = Int(digits, radix: 8), m & ~0o777 == 0 else {
            throw ConfigError(key: k, value: text, allowed: "octal permission bits such as \"0660\"")
        }
        guard m & 0o007 == 0 else {
            throw ConfigError(key: k, value: text, allowed: "no permissions for others (e.g. 0660); access is by user and group")
        }
        return m
    }

    static func imuSource(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try string(k, v, nonEmpty: true)
        do {
            _ = try IMUSourceSpec.parse(s)
        } catch {
            throw ConfigError(key: k, value: s, allowed: "none, i2c:/dev/i2c-N@0x68 or replay:FILE[,speed=N][,loop] (\(error.reason))")
        }
        return s
    }

    static func baroSource(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try string(k, v, nonEmpty: true)
        do {
            _ = try BaroSourceSpec.parse(s)
        } catch {
            throw ConfigError(key: k, value: s, allowed: "none, i2c:/dev/i2c-N@0x76 or replay:FILE[,speed=N] (\(error.reason))")
        }
        return s
    }

    static func hrSource(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try string(k, v, nonEmpty: true)
        do {
            _ = try HeartRateSourceSpec.parse(s)
        } catch {
            throw ConfigError(key: k, value: s,
                              allowed: "none, ble:auto, ble:AA:BB:CC:DD:EE:FF or replay:FILE[,speed=N] (\(error.reason))")
        }
        return s
    }

    /// Four increasing positive numbers: where zones 2–5 begin.
    static func zoneBounds(_ k: String, _ v: Any) throws(ConfigError) -> [Double] {
        let allowed = "four increasing numbers where zones 2 to 5 begin, such as [60, 70, 80, 90] (percent) or [120, 140, 155, 170] (bpm)"
        guard let list = v as? [Any], list.count == 4 else { throw ConfigError(key: k, value: describe(v), allowed: allowed) }
        var out: [Double] = []
        for item in list {
            guard let d = try? double(k, item, 1...250) else { throw ConfigError(key: k, value: describe(v), allowed: allowed) }
            out.append(d)
        }
        guard zip(out, out.dropFirst()).allSatisfy({ $0 < $1 }) else { throw ConfigError(key: k, value: describe(v), allowed: allowed) }
        return out
    }

    /// `HOST:PORT` for `--gpsd`.
    static func hostPort(_ k: String, _ text: String) throws(ConfigError) -> (String, Int) {
        guard let colon = text.lastIndex(of: ":") else {
            throw ConfigError(key: k, value: text, allowed: "HOST:PORT, e.g. 127.0.0.1:2947")
        }
        let host = String(text[..<colon])
        let port = try int(k, String(text[text.index(after: colon)...]), 1...65535)
        guard !host.isEmpty else { throw ConfigError(key: k, value: text, allowed: "HOST:PORT, e.g. 127.0.0.1:2947") }
        return (host, port)
    }

}

/// Command-line flags that override the file.
public struct ConfigOverrides: Sendable {
    public var stateDir: String?
    public var socketPath: String?
    public var gpsd: String?
    public var imu: String?
    public var baro: String?
    public var hr: String?
    public var logLevel: String?

    public init(stateDir: String? = nil, socketPath: String? = nil, gpsd: String? = nil, imu: String? = nil,
                baro: String? = nil, hr: String? = nil, logLevel: String? = nil) {
        self.stateDir = stateDir
        self.socketPath = socketPath
        self.gpsd = gpsd
        self.imu = imu
        self.baro = baro
        self.hr = hr
        self.logLevel = logLevel
    }

    public func apply(to base: DaemonConfig) throws(ConfigError) -> DaemonConfig {
        var c = base
        if let v = stateDir { c.stateDir = try ConfigLoader.path("--state-dir", v) }
        if let v = socketPath { c.socketPath = try ConfigLoader.socketPath("--socket", v) }
        if let v = gpsd { (c.gpsdHost, c.gpsdPort) = try ConfigLoader.hostPort("--gpsd", v) }
        if let v = imu { c.imuSource = try ConfigLoader.imuSource("--imu", v) }
        if let v = baro { c.baroSource = try ConfigLoader.baroSource("--baro", v) }
        if let v = hr { c.hrSource = try ConfigLoader.hrSource("--hr", v) }
        if let v = logLevel {
            c.logLevel = try ConfigLoader.oneOfStrings("--log-level", v,
                                                       ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        }
        return c
    }
}
