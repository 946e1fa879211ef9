
/// Metric or imperial display.
public enum UnitSystem: String, Sendable, Codable, CaseIterable {
    case metric, imperial

    /// Metres in one display unit of distance (km or mile).
    public var metresPerUnit: Double { self == .metric ? 1000 : 1609.344 }
    public var distanceSymbol: String { self == .metric ? "km" : "mi" }
}

/// The seed app's display formats: `3.42 km`, `00:25:13`, `7:22 min/km`.
public enum Formatting {
    /// Distance with two decimals and its unit.
    public static func distance(_ metres: Double, _ units: UnitSystem = .metric) -> String {
        "\((metres / units.metresPerUnit).fixed(2)) \(units.distanceSymbol)"
    }

    /// hh:mm:ss, hours unbounded.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--:--" }
        let s = Int(seconds.rounded(.down))
        return "\((s / 3600).zeroPadded(2)):\(((s / 60) % 60).zeroPadded(2)):\((s % 60).zeroPadded(2))"
    }

    /// m:ss min/km (or min/mi) from a speed in m/s; `--:--` when not moving.
    public static func pace(speed: Double, _ units: UnitSystem = .metric) -> String {
        let unit = "min/\(units.distanceSymbol)"
        guard speed.isFinite, speed > 0.05 else { return "--:-- \(unit)" }
        let secondsPerUnit = Int((units.metresPerUnit / speed).rounded())
        guard secondsPerUnit < 100 * 60 else { return "--:-- \(unit)" }
        return "\(secondsPerUnit / 60):\((secondsPerUnit % 60).zeroPadded(2)) \(unit)"
    }

    /// A short distance ahead to the nearest 10 m (yd), `120 m`; beyond one
    /// unit (km, mile) as `distance` says it.
    public static func shortDistance(_ metres: Double, _ units: UnitSystem = .metric) -> String {
        guard metres.isFinite else { return "–" }
        if metres >= units.metresPerUnit { return distance(metres, units) }
        let n = Int((max(0, metres) / (units == .metric ? 10 : 9.144)).rounded()) * 10
        return "\(n) \(units == .metric ? "m" : "yd")"
    }

    /// A climb in whole metres (feet), `+12 m`; `0 m` when it rounds to
    /// nothing (a sign on zero reads as a climb that was not).
    public static func climb(_ metres: Double, _ units: UnitSystem = .metric) -> String {
        let n = wholeElevation(metres, units)
        return "\(n == 0 ? "" : "+")\(n) \(units == .metric ? "m" : "ft")"
    }

    /// Climb and descent, `+12 m / -8 m`; `0 m` for a flat session, as the
    /// phone shows it.
    public static func elevation(gain: Double, loss: Double, _ units: UnitSystem = .metric) -> String {
        let down = wholeElevation(loss, units)
        guard wholeElevation(gain, units) != 0 || down != 0 else { return climb(0, units) }
        return "\(climb(gain, units)) / \(down == 0 ? "" : "-")\(down) \(units == .metric ? "m" : "ft")"
    }

    private static func wholeElevation(_ metres: Double, _ units: UnitSystem) -> Int {
        guard metres.isFinite else { return 0 }
        return Int((units == .metric ? metres : metres / 0.3048).rounded())
    }

    /// A climb rate in m/h as `420 m/h` or `1378 ft/h`.
    public static func climbRate(_ metresPerHour: Double, _ units: UnitSystem = .metric) -> String {
        let v = metresPerHour.isFinite ? metresPerHour : 0
        return units == .metric ? "\(Int(v.rounded())) m/h" : "\(Int((v / 0.3048).rounded())) ft/h"
    }

    /// A speed as `activity` shows it: a pace (`5:12 min/km`) or a speed (`24.3 km/h`, a ride's).
    public static func rate(speed: Double, _ units: UnitSystem = .metric, for profile: ActivityProfile) -> String {
        profile.showsSpeed ? Formatting.speed(speed, units) : pace(speed: speed, units)
    }

    /// Speed in km/h or mph with one decimal.
    public static func speed(_ mps: Double, _ units: UnitSystem = .metric) -> String {
        let v = mps.isFinite ? mps * 3600 / units.metresPerUnit : 0
        return "\(v.fixed(1)) \(units == .metric ? "km/h" : "mph")"
    }
}
