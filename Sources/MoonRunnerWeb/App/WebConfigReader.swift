import Foundation
import MoonRunnerConfig
import MoonRunnerCore

/// Reads the `web:` section of `moonrunner.yaml` strictly, as the daemon
/// reads the rest of the file (the same `ConfigChecks`, the same messages):
/// an unknown `web.` key, a wrong type or a value out of range names the key
/// and stops the web app with EX_CONFIG (78). The daemon leaves `web.` to
/// this reader and checks everything else; of the daemon's keys only
/// `socket.path` (where to find it) is read here.
public enum WebConfigReader {
    typealias Apply = @Sendable (inout WebSettings, String, Any) throws(ConfigError) -> Void

    private static let keys: [String: Apply] = [
        "web.listen": { s, k, v throws(ConfigError) in (s.host, s.port) = try listen(k, v) },
        "web.state_dir": { s, k, v throws(ConfigError) in s.stateDir = try path(k, v) },
        "web.admin_socket": { s, k, v throws(ConfigError) in s.adminSocket = try socketPath(k, v) },
        "web.upload_socket": { s, k, v throws(ConfigError) in s.uploadSocket = try socketPath(k, v) },
        "web.admin_group": { s, k, v throws(ConfigError) in s.adminGroup = try ConfigChecks.string(k, v, nonEmpty: false) },
        "web.public_url": { s, k, v throws(ConfigError) in s.publicURL = try publicURL(k, v) },
        "web.tiles": { s, k, v throws(ConfigError) in s.tiles = try tiles(k, v) },
        "web.tile_attribution": { s, k, v throws(ConfigError) in
            s.tileAttribution = try ConfigChecks.string(k, v, nonEmpty: false)
        },
        "web.leaflet_dir": { s, k, v throws(ConfigError) in s.leafletDir = try path(k, v) },
        "web.idle_timeout_s": { s, k, v throws(ConfigError) in s.idleTimeout = try ConfigChecks.double(k, v, 2...3600) },
        "web.body_timeout_s": { s, k, v throws(ConfigError) in s.bodyTimeout = try ConfigChecks.double(k, v, 5...3600) },
        "web.max_header_kb": { s, k, v throws(ConfigError) in s.maxHeaderBytes = try ConfigChecks.int(k, v, 4...64) * 1024 },
        "web.max_connections": { s, k, v throws(ConfigError) in s.maxConnections = try ConfigChecks.int(k, v, 4...1024) },
        "socket.path": { s, k, v throws(ConfigError) in s.socketPath = try socketPath(k, v) },
    ]

    /// Every key this reader takes (the `web.` ones and `socket.path`).
    public static var knownKeys: [String] { keys.keys.sorted() }

    /// Reads `path` on top of `base`.
    public static func load(path: String, into base: WebSettings = WebSettings()) throws(ConfigError) -> WebSettings {
        try apply(ConfigFile.mapping(at: path), to: base)
    }

    public static func parse(yaml text: String, into base: WebSettings = WebSettings(),
                             source: String = "config") throws(ConfigError) -> WebSettings {
        try apply(ConfigFile.mapping(text, source: source), to: base)
    }

    /// The `web.` keys and `socket.path` of the file's mapping (nil: an empty file) on top of `base`.
    private static func apply(_ map: [String: Any]?, to base: WebSettings) throws(ConfigError) -> WebSettings {
        var settings = base
        guard let map else { return settings }
        if let web = map["web"], !(web is [String: Any]) {
            throw ConfigError(key: "web", value: ConfigChecks.describe(web), allowed: "a mapping of the web app's keys")
        }
        var flat: [(String, Any)] = []
        ConfigChecks.flatten(map, prefix: "", into: &flat)
        let webKeys = knownKeys.filter { $0.hasPrefix("web.") }
        for (key, value) in flat.sorted(by: { $0.0 < $1.0 }) {
            if let apply = keys[key] {
                try apply(&settings, key, value)
            } else if key.hasPrefix("web.") {
                throw ConfigError(key: key, value: ConfigChecks.describe(value),
                                  allowed: "unknown key (did you mean \(ConfigChecks.nearest(key, in: webKeys))?)")
            }
            // Every other key is the daemon's, which checks it.
        }
        return settings
    }

    /// Checks that need the file system, before anything starts: a tiles file
    /// that must be readable, Leaflet that must be there when tiles are on.
    public static func validateAtStart(_ s: WebSettings) throws(ConfigError) {
        if case let .mbtiles(path) = s.tiles, !FileManager.default.isReadableFile(atPath: path) {
            throw ConfigError(key: "web.tiles", value: "mbtiles:\(path)", allowed: "a readable MBTiles file (\(path) is not)")
        }
        if s.tiles != .none, !FileManager.default.isReadableFile(atPath: s.leafletDir + "/leaflet.js") {
            throw ConfigError(key: "web.leaflet_dir", value: s.leafletDir,
                              allowed: "a folder with leaflet.js and leaflet.css (Debian: apt install libjs-leaflet); "
                                  + "maps with tiles need it, or set web.tiles: none")
        }
    }

    // MARK: Values

    /// `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (all addresses).
    public static func listen(_ k: String, _ v: Any) throws(ConfigError) -> (String, Int) {
        let allowed = "HOST:PORT such as 0.0.0.0:8080, 127.0.0.1:8080 or [::]:8080"
        let text = (v as? String) ?? ConfigChecks.describe(v)
        guard let colon = text.lastIndex(of: ":") else { throw ConfigError(key: k, value: text, allowed: allowed) }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "0.0.0.0" }
        guard let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port),
              !host.contains(" "), host.contains(":") || !text.hasPrefix("[") else {
            throw ConfigError(key: k, value: text, allowed: allowed)
        }
        return (host, port)
    }

    public static func path(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try ConfigChecks.string(k, v, nonEmpty: true)
        guard !s.contains("\0") else { throw ConfigError(key: k, value: s, allowed: "a file system path") }
        return s
    }

    public static func socketPath(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try path(k, v)
        guard s.utf8.count < 108 else {
            throw ConfigError(key: k, value: s, allowed: "a path shorter than 108 bytes (a Unix socket limit)")
        }
        return s
    }

    static func publicURL(_ k: String, _ v: Any) throws(ConfigError) -> String {
        let s = try ConfigChecks.string(k, v, nonEmpty: false)
        guard s.isEmpty || ((s.hasPrefix("http://") || s.hasPrefix("https://")) && !s.contains(" ")) else {
            throw ConfigError(key: k, value: s, allowed: "empty, or the address phones use, such as http://moonrunner.local:8080")
        }
        return s.hasSuffix("/") ? String(s.dropLast()) : s
    }

    /// `none`, `mbtiles:/path/area.mbtiles` or an http(s) URL template with `{z}`, `{x}` and `{y}`.
    static func tiles(_ k: String, _ v: Any) throws(ConfigError) -> TileSource {
        let s = try ConfigChecks.string(k, v, nonEmpty: true)
        if s == "none" { return .none }
        if s.hasPrefix("mbtiles:") {
            let file = String(s.dropFirst("mbtiles:".count))
            guard file.hasPrefix("/") else {
                throw ConfigError(key: k, value: s, allowed: "mbtiles: with an absolute path, e.g. mbtiles:/var/lib/moonrunner-web/area.mbtiles")
            }
            return .mbtiles(path: file)
        }
        guard s.hasPrefix("https://") || s.hasPrefix("http://"), ["{z}", "{x}", "{y}"].allSatisfy(s.contains),
              !s.contains(" "), !s.contains("\"") else {
            throw ConfigError(key: k, value: s, allowed: "none, mbtiles:/path/area.mbtiles, or a tile URL template "
                + "such as https://tile.example.org/{z}/{x}/{y}.png")
        }
        return .url(template: s)
    }
}
