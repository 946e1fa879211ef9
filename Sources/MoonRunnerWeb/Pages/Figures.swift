import Foundation
import MoonRunnerCore
import MoonRunnerProtocol

/// One figure on a page: the reply member it shows (`data-field`), its
/// label, the text for people and the raw number in SI units (`data-value`).
public struct Figure: Sendable, Equatable {
    public var key: String
    public var label: String
    public var text: String {
        didSet { (number, unit) = Self.split(text) }
    }
    /// The member's raw value as the reply has it ("" when null or absent).
    public var value: String
    /// The text in two parts, the unit drawn smaller: `1.23` and `km`.
    public private(set) var number: String
    public private(set) var unit: String

    public init(key: String, label: String, text: String, value: String) {
        self.key = key
        self.label = label
        self.text = text
        self.value = value
        (number, unit) = Self.split(text)
    }

    /// `1.23 km` → (`1.23`, `km`), `5:12 min/km` → (`5:12`, `min/km`); text
    /// that does not start with a number stays whole. The pages' script
    /// splits the live updates by the same rule.
    static func split(_ text: String) -> (String, String) {
        guard let first = text.first, first.isNumber || "-+−".contains(first),
              let space = text.firstIndex(of: " ") else { return (text, "") }
        return (String(text[..<space]), String(text[text.index(after: space)...]))
    }
}

/// How a reply member becomes text for people, in the phone's units. Every
/// kind formats with `MoonRunnerCore.Formatting`, the CLI's formats.
public enum FigureKind: Sendable {
    /// Seconds as hh:mm:ss.
    case duration
    /// Metres as `3.42 km` or `2.13 mi`.
    case distance
    /// Seconds per km (a STATUS pace) as `5:12 min/km` or per mile.
    case paceSecondsPerKm
    /// Metres per second as a pace.
    case paceFromSpeed
    /// Metres per second as km/h or mph.
    case speed
    /// Metres per hour of climbing as `420 m/h` or `1378 ft/h`.
    case climbRate
    /// Metres of height as `+12 m` or `+39 ft` (`0 m` with no sign).
    case climb
    /// Metres of height as `−8 m` or `−26 ft` (`0 m` with no sign).
    case descent
    /// Where the altitude came from: barometer or GPS, in words.
    case altitudeSource
    /// A whole number, with a unit after it ("" for none).
    case count(String)
    /// Per minute, e.g. steps per minute.
    case perMinute(String)
    /// Kilocalories.
    case energy
    /// The GPS grade, in words.
    case grade
    /// A bearing in degrees with its compass point.
    case bearing
    /// Text as it is.
    case text
}

/// A label in both languages: a phrase of the tables, or words given in place
/// (so that a new figure is one line of a table).
public enum FigureLabel: Sendable {
    case phrase(Phrase)
    case words(en: String, zh: String)

    func text(_ p: Phrases) -> String {
        switch self {
        case let .phrase(phrase): p[phrase]
        case let .words(en, zh): p.language == .english ? en : zh
        }
    }
}

/// A figure of a table: the member's key path in the reply, how to show it, its label.
public struct FigureSpec: Sendable {
    public var key: String
    public var kind: FigureKind
    public var label: FigureLabel

    public init(_ key: String, _ kind: FigureKind, _ label: FigureLabel) {
        self.key = key
        self.kind = kind
        self.label = label
    }

    /// The figure for `reply` (a reply as parsed JSON), in the phone's words and units.
    public func figure(in reply: JSONValue, phrases: Phrases, units: UnitSystem) -> Figure {
        let raw = reply.at(path: key)
        return Figure(key: key, label: label.text(phrases), text: FigureText.text(raw, kind, phrases, units),
                      value: FigureText.rawValue(raw))
    }
}

/// Turns values into the text of figures.
public enum FigureText {
    /// Which source gave the altitude of how much of the track, `terrain model 96 %, GPS 4 %`,
    /// when more than one did; nil when one source gave it all (its name says it).
    public static func altitudeShares(_ s: AltitudeShares, _ phrases: Phrases) -> String? {
        let parts = [(phrases[.barometric], s.barometric), (phrases[.terrainModel], s.dem), (phrases[.gpsAltitude], s.gps)]
            .filter { $0.1 >= 0.005 }
        guard parts.count > 1 else { return nil }
        return parts.map { "\($0.0) \(Int(($0.1 * 100).rounded())) %" }.joined(separator: ", ")
    }

    public static func text(_ raw: JSONValue?, _ kind: FigureKind, _ phrases: Phrases, _ units: UnitSystem) -> String {
        if case let .string(s)? = raw {
            switch kind {
            // A grade or a source this build does not know reads as none, as GPS.
            case .grade: return phrases.gradeName(SignalGrade(rawValue: s) ?? SignalGrade.none)
            case .altitudeSource: return phrases.sourceName(AltitudeSource(rawValue: s) ?? .gps)
            default: return s
            }
        }
        guard case let .number(v)? = raw, v.isFinite else {
            if case .grade = kind { return phrases.gradeName(.none) }
            return kind.placeholder(units)
        }
        switch kind {
        case .duration: return Formatting.duration(v)
        case .distance: return Formatting.distance(v, units)
        case .paceSecondsPerKm: return v > 0 ? Formatting.pace(speed: 1000 / v, units) : kind.placeholder(units)
        case .paceFromSpeed: return Formatting.pace(speed: v, units)
        case .speed: return Formatting.speed(v, units)
        case .climbRate: return Formatting.climbRate(v, units)
        case .climb: return climb(v, units)
        case .descent:
            // No sign on a descent that rounds to nothing ("0 m", not "−0 m").
            let n = Int((units == .metric ? v : v / 0.3048).rounded())
            return "\(n == 0 ? "" : "−")\(n) \(units == .metric ? "m" : "ft")"
        case .altitudeSource: return numberText(v)
        case let .count(unit): return unit.isEmpty ? String(Int(v.rounded())) : "\(Int(v.rounded())) \(unit)"
        case let .perMinute(unit): return "\(Int(v.rounded())) \(unit)"
        case .energy: return "\(Int(v.rounded())) kcal"
        case .grade: return phrases.gradeName(.none)
        case .bearing: return "\(Int(v.rounded()) % 360)° \(phrases.direction(v))"
        case .text: return numberText(v)
        }
    }

    /// A number as JSON writes it (whole numbers without a point), without an encoder per value.
    public static func numberText(_ v: Double) -> String {
        v.rounded() == v && abs(v) < 9e15 ? String(Int64(v)) : "\(v)"
    }

    /// A pace (`5:12`), or a ride's speed (`24.3`), without its unit (for tables whose header names it).
    public static func rateNumber(speed: Double, _ shown: ActivityProfile, _ units: UnitSystem) -> String {
        Figure.split(Formatting.rate(speed: speed, units, for: shown)).0
    }

    /// `+12 m` or `+39 ft`.
    public static func climb(_ metres: Double, _ units: UnitSystem) -> String {
        Formatting.climb(metres, units)
    }

    /// A split's change of altitude, `+12 m`, `-4 m` or `0 m`: rounded first,
    /// so that a flat split's -0.3 m is `0 m` as in the figure boxes, never `-0 m`.
    public static func elevationChange(_ metres: Double, _ units: UnitSystem) -> String {
        let n = Int((units == .metric ? metres : metres / 0.3048).rounded())
        return "\(n > 0 ? "+" : "")\(n) \(units == .metric ? "m" : "ft")"
    }

    /// The member's value as the reply writes it, for `data-value`.
    public static func rawValue(_ raw: JSONValue?) -> String {
        switch raw {
        case .none, .null?: ""
        case let .string(s)?: s
        case let .bool(b)?: b ? "true" : "false"
        case let .number(v)?: numberText(v)
        case let v?: v.serialized
        }
    }
}

extension FigureKind {
    /// What a figure shows before it has a value.
    func placeholder(_ units: UnitSystem) -> String {
        switch self {
        case .duration: "--:--:--"
        case .paceSecondsPerKm, .paceFromSpeed: "--:-- min/\(units.distanceSymbol)"
        default: "–"
        }
    }
}

extension JSONValue {
    /// The member at a dotted path (`gps.grade`), nil when absent.
    public func at(path: String) -> JSONValue? {
        var node: JSONValue? = self
        for part in path.split(separator: ".") {
            guard case let .object(map)? = node else { return nil }
            node = map[String(part)]
        }
        return node
    }

    /// The finite number at `path`, nil when absent, not a number or not finite.
    func number(at path: String) -> Double? {
        if case let .number(v)? = at(path: path), v.isFinite { return v }
        return nil
    }

    /// The boolean at `path`; false when absent or not a boolean.
    func bool(at path: String) -> Bool {
        if case let .bool(b)? = at(path: path) { return b }
        return false
    }

    /// The string at `path`, nil when absent or not a string.
    func string(at path: String) -> String? {
        if case let .string(s)? = at(path: path) { return s }
        return nil
    }
}
