import Foundation
import MoonRunnerConfig
import MoonRunnerCore

/// Reads the `upload:` section of `moonrunner.yaml` as strictly as the daemon
/// reads the rest (the same `ConfigChecks` and messages): an unknown
/// `upload.` key, a wrong type or a value out of range names the key and
/// stops the service with EX_CONFIG (78). Of the daemon's keys only
/// `socket.path` is read here.
public enum UploadConfigReader {
    typealias Apply = @Sendable (inout UploadSettings, String, Any) throws(ConfigError) -> Void

    private static let keys: [String: Apply] = {
        var k: [String: Apply] = [
            "upload.state_dir": { s, k, v throws(ConfigError) in s.stateDir = try path(k, v) },
            "upload.admin_socket": { s, k, v throws(ConfigError) in s.adminSocket = try path(k, v) },
            "upload.admin_group": { s, k, v throws(ConfigError) in s.adminGroup = try ConfigChecks.string(k, v, nonEmpty: false) },
            "upload.networks": { s, k, v throws(ConfigError) in s.networks = try names(k, v) },
            "upload.network_source": { s, k, v throws(ConfigError) in
                s.networkSource = try ConfigChecks.enumValue(k, v, UploadSettings.NetworkSource.self)
            },
            "upload.privacy_zones": { s, k, v throws(ConfigError) in s.privacyZones = try zones(k, v) },
            "upload.first_retry_s": { s, k, v throws(ConfigError) in s.firstWait = try ConfigChecks.double(k, v, 0.1...600) },
            "upload.longest_retry_s": { s, k, v throws(ConfigError) in s.longestWait = try ConfigChecks.double(k, v, 1...86_400) },
            "upload.max_attempts": { s, k, v throws(ConfigError) in s.maxAttempts = try ConfigChecks.int(k, v, 1...1000) },
            "upload.webdav.gpx": { s, k, v throws(ConfigError) in s.targets[.webdav]?.gpx = try ConfigChecks.bool(k, v) },
            "upload.strava.authorize_url": { s, k, v throws(ConfigError) in s.targets[.strava]?.authorizeURL = try url(k, v) },
            "socket.path": { s, k, v throws(ConfigError) in s.socketPath = try path(k, v) },
        ]
        for t in TargetKind.allCases {
            for field in ["enabled", "privacy_zones", "url"] { k["upload.\(t.rawValue).\(field)"] = targetField }
        }
        return k
    }()

    /// One closure for every `upload.TARGET.FIELD` key, the target read from the key: a closure
    /// that captures the loop's target crashes Swift 6.3.1's SIL generation (typed throws).
    private static let targetField: Apply = { s, k, v throws(ConfigError) in try setTargetField(&s, k, v) }

    static func setTargetField(_ s: inout UploadSettings, _ k: String, _ v: Any) throws(ConfigError) {
        let parts = k.split(separator: ".").map(String.init)
        guard parts.count == 3, let kind = TargetKind(rawValue: parts[1]) else { return }
        var target = s.target(kind)
        switch parts[2] {
        case "enabled": target.enabled = try ConfigChecks.bool(k, v)
        case "privacy_zones": target.privacyZones = try ConfigChecks.bool(k, v)
        default: target.url = try url(k, v)
        }
        s.targets[kind] = target
    }

    /// Every key this reader takes (the `upload.` ones and `socket.path`).
    public static var knownKeys: [String] { keys.keys.sorted() }

    public static func load(path: String, into base: UploadSettings = UploadSettings()) throws(ConfigError) -> UploadSettings {
        try apply(ConfigFile.mapping(at: path), to: base)
    }

    public static func parse(yaml text: String, into base: UploadSettings = UploadSettings()) throws(ConfigError) -> UploadSettings {
        try apply(ConfigFile.mapping(text, source: "config"), to: base)
    }

    private static func apply(_ map: [String: Any]?, to base: UploadSettings) throws(ConfigError) -> UploadSettings {
        var settings = base
        guard let map else { return settings }
        if let section = map["upload"], !(section is [String: Any]) {
            throw ConfigError(key: "upload", value: ConfigChecks.describe(section), allowed: "a mapping of the upload service's keys")
        }
        var flat: [(String, Any)] = []
        ConfigChecks.flatten(map, prefix: "", into: &flat)
        let ours = knownKeys.filter { $0.hasPrefix("upload.") }
        for (key, value) in flat.sorted(by: { $0.0 < $1.0 }) {
            if let apply = keys[key] {
                try apply(&settings, key, value)
            } else if key.hasPrefix("upload.") {
                throw ConfigError(key: key, value: ConfigChecks.describe(value),
                                  allowed: "unknown key (did you mean \(ConfigChecks.nearest(key, in: ours))?)")
            }
        }
        return settings
    }

    static func path(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try ConfigChecks.string(k, v, nonEmpty: true)
        guard s.hasPrefix("/"), !s.contains("\0") else { throw ConfigError(key: k, value: s, allowed: "an absolute path") }
        return s
    }

    /// Empty (not used), or an http(s) address without spaces; a trailing `/` is dropped.
    static func url(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try ConfigChecks.string(k, v, nonEmpty: false)
        guard s.isEmpty || ((s.hasPrefix("https://") || s.hasPrefix("http://")) && !s.contains(" ")) else {
            throw ConfigError(key: k, value: s, allowed: "empty, or an address such as https://fit.example.org")
        }
        return s.hasSuffix("/") ? String(s.dropLast()) : s
    }

    static func names(_ k: String, _ v: Any) throws(ConfigError) -> [String] {
        guard let list = v as? [Any] else { throw ConfigError(key: k, value: ConfigChecks.describe(v), allowed: "a list of network names") }
        var out: [String] = []
        for item in list { out.append(try ConfigChecks.string(k, item, nonEmpty: true)) }
        return out
    }

    /// A list of `{lat: …, lon: …, radius_m: …}` with radii of 100–2000 m.
    static func zones(_ k: String, _ v: Any) throws(ConfigError) -> [PrivacyZone] {
        let allowed = "a list of at most 16 zones {lat: 51.5007, lon: -0.1246, radius_m: 300} with radii of 100–2000 m"
        guard let list = v as? [Any], list.count <= 16 else { throw ConfigError(key: k, value: ConfigChecks.describe(v), allowed: allowed) }
        var out: [PrivacyZone] = []
        for item in list {
            guard let m = item as? [String: Any], Set(m.keys) == ["lat", "lon", "radius_m"],
                  let lat = number(m["lat"]), let lon = number(m["lon"]), let r = number(m["radius_m"]) else {
                throw ConfigError(key: k, value: ConfigChecks.describe(item), allowed: allowed)
            }
            let zone = PrivacyZone(latitude: lat, longitude: lon, radiusM: r)
            guard zone.isValid else { throw ConfigError(key: k, value: ConfigChecks.describe(item), allowed: allowed) }
            out.append(zone)
        }
        return out
    }

    private static func number(_ v: Any?) -> Double? {
        if let d = v as? Double { return d }
        if let i = v as? Int { return Double(i) }
        return nil
    }
}
