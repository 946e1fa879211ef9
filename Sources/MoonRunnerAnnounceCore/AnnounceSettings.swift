import FoundationEssentials
import MoonRunnerConfig
import MoonRunnerCore

/// What the announcer says and how (`/etc/moonrunner/announce.yaml`).
public struct AnnounceSettings: Sendable, Equatable {
    public var language: Language = .english
    /// espeak-ng voice; empty: the language's own.
    public var voice = ""
    /// Words per minute.
    public var rateWPM = 170
    /// espeak-ng amplitude, 0–200.
    public var volume = 100
    /// ALSA device for aplay.
    public var alsaDevice = "default"
    /// Announcements not started within this many seconds of their event are dropped, not queued.
    public var maxDelay = 5.0

    public var start = true
    public var splits = true
    /// 0: off.
    public var everyMinutes = 0
    public var autoPause = true
    public var pauseResume = true
    public var laps = true
    public var badges = true
    public var course = true
    /// The course's turns ahead and at the turn, and its points of interest.
    public var turns = true
    public var gps = true
    /// hr_connected, hr_lost and hr_zone.
    public var heartRate = true
    public var summary = true
    /// "Battery 20 percent, about 40 minutes left." at each warning level.
    public var battery = true
    /// "Run uploaded to Strava.", from the upload service's socket.
    public var uploads = true
    /// A short tone before the voice on auto-pause and auto-resume.
    public var autoPauseCue = true

    public init() {}

    /// The voice espeak-ng is asked for.
    public var espeakVoice: String { voice.isEmpty ? language.voice : voice }
}

/// Reads the announcer's YAML (as a parsed map) strictly: unknown keys,
/// wrong types and values out of range name the key (exit 78).
public enum AnnounceConfigReader {
    typealias Apply = @Sendable (inout AnnounceSettings, String, Any) throws(ConfigError) -> Void

    private static let keys: [String: Apply] = [
        "language": { c, k, v throws(ConfigError) in c.language = try Self.language(k, v) },
        "voice": { c, k, v throws(ConfigError) in c.voice = try ConfigChecks.string(k, v, nonEmpty: false) },
        "rate_wpm": { c, k, v throws(ConfigError) in c.rateWPM = try ConfigChecks.int(k, v, 80...450) },
        "volume": { c, k, v throws(ConfigError) in c.volume = try ConfigChecks.int(k, v, 0...200) },
        "alsa_device": { c, k, v throws(ConfigError) in c.alsaDevice = try ConfigChecks.string(k, v, nonEmpty: true) },
        "max_delay_s": { c, k, v throws(ConfigError) in c.maxDelay = try ConfigChecks.double(k, v, 0.5...60) },
        "announce.start": { c, k, v throws(ConfigError) in c.start = try ConfigChecks.bool(k, v) },
        "announce.splits": { c, k, v throws(ConfigError) in c.splits = try ConfigChecks.bool(k, v) },
        "announce.every_minutes": { c, k, v throws(ConfigError) in c.everyMinutes = try ConfigChecks.int(k, v, 0...240) },
        "announce.auto_pause": { c, k, v throws(ConfigError) in c.autoPause = try ConfigChecks.bool(k, v) },
        "announce.pause_resume": { c, k, v throws(ConfigError) in c.pauseResume = try ConfigChecks.bool(k, v) },
        "announce.laps": { c, k, v throws(ConfigError) in c.laps = try ConfigChecks.bool(k, v) },
        "announce.badges": { c, k, v throws(ConfigError) in c.badges = try ConfigChecks.bool(k, v) },
        "announce.course": { c, k, v throws(ConfigError) in c.course = try ConfigChecks.bool(k, v) },
        "announce.turns": { c, k, v throws(ConfigError) in c.turns = try ConfigChecks.bool(k, v) },
        "announce.gps": { c, k, v throws(ConfigError) in c.gps = try ConfigChecks.bool(k, v) },
        "announce.heart_rate": { c, k, v throws(ConfigError) in c.heartRate = try ConfigChecks.bool(k, v) },
        "announce.summary": { c, k, v throws(ConfigError) in c.summary = try ConfigChecks.bool(k, v) },
        "announce.battery": { c, k, v throws(ConfigError) in c.battery = try ConfigChecks.bool(k, v) },
        "announce.uploads": { c, k, v throws(ConfigError) in c.uploads = try ConfigChecks.bool(k, v) },
        "cues.auto_pause": { c, k, v throws(ConfigError) in c.autoPauseCue = try ConfigChecks.bool(k, v) },
    ]

    /// A language by its announcer's name (`en`, `cmn`), for the file's key and `--language`.
    public static func language(_ key: String, _ value: Any) throws(ConfigError) -> Language {
        let name = try ConfigChecks.oneOfStrings(key, value, Language.allCases.map(\.announcerName))
        return Language(announcerName: name) ?? .english
    }

    /// Every key the file may hold.
    public static var knownKeys: [String] { keys.keys.sorted() }

    /// Applies a parsed YAML document (nil for an empty file) on top of `base`.
    public static func read(_ document: Any?, into base: AnnounceSettings = AnnounceSettings(),
                            source: String = "config") throws(ConfigError) -> AnnounceSettings {
        var settings = base
        guard let document else { return settings }
        guard let map = document as? [String: Any] else {
            throw ConfigError(key: "(file)", value: source, allowed: "a mapping of keys to values at the top level")
        }
        var flat: [(String, Any)] = []
        ConfigChecks.flatten(map, prefix: "", into: &flat)
        for (key, value) in flat.sorted(by: { $0.0 < $1.0 }) {
            guard let apply = keys[key] else {
                throw ConfigError(key: key, value: ConfigChecks.describe(value),
                                  allowed: "unknown key (did you mean \(ConfigChecks.nearest(key, in: knownKeys))?)")
            }
            try apply(&settings, key, value)
        }
        return settings
    }
}
