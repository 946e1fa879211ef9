import MoonRunnerCore

/// British English as a running coach would say it: "3 kilometres",
/// "5 minutes 12", pace "5 12" (five twelve) or "5 oh 5".
public struct EnglishWording: Wording {
    public init() {}

    public func count(_ n: Int) -> String { String(n) }

    public var sentenceBreak: String { " " }

    public func units(_ n: Int, _ units: UnitSystem) -> String {
        "\(n) \(plural(unitName(units), n == 1))"
    }

    public func distance(_ metres: Double, _ units: UnitSystem) -> String {
        let digits = Clock.distanceDigits(max(0, metres) / units.metresPerUnit)
        return "\(digits) \(plural(unitName(units), digits == "1"))"
    }

    public func nearDistance(_ metres: Double, _ units: UnitSystem) -> String {
        switch units {
        case .metric:
            if metres >= 1000 { return distance(metres, units) }
            return "\(Int((metres / 10).rounded()) * 10) metres"
        case .imperial:
            if metres >= units.metresPerUnit - 5 { return distance(metres, units) }
            return "\(Int((metres / 0.9144 / 10).rounded()) * 10) yards"
        }
    }

    public func duration(_ seconds: Double) -> String {
        let (h, m, s) = Clock.parts(seconds)
        if h > 0 { return m > 0 ? "\(h) \(plural("hour", h == 1)) \(m) \(plural("minute", m == 1))" : "\(h) \(plural("hour", h == 1))" }
        if m == 0 { return "\(s) \(plural("second", s == 1))" }
        if s == 0 { return "\(m) \(plural("minute", m == 1))" }
        return "\(m) \(plural("minute", m == 1)) \(s)"
    }

    public func pace(_ secondsPerUnit: Double) -> String {
        let (h, m, s) = Clock.parts(secondsPerUnit)
        let minutes = h * 60 + m
        if s == 0 { return "\(minutes) \(plural("minute", minutes == 1))" }
        return s < 10 ? "\(minutes) oh \(s)" : "\(minutes) \(s)"
    }

    public func unitName(_ units: UnitSystem) -> String { units == .metric ? "kilometre" : "mile" }

    public func direction(_ bearing: Double) -> String {
        ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"][Clock.octant(bearing)]
    }

    public func speed(_ metresPerSecond: Double, _ units: UnitSystem) -> String {
        let n = Clock.perHour(metresPerSecond, units)
        return units == .metric ? "\(n) \(plural("kilometre", n == 1)) an hour" : "\(n) \(plural("mile", n == 1)) an hour"
    }

    public func climbRate(_ metresPerHour: Double, _ units: UnitSystem) -> String {
        "\(Clock.climbTens(metresPerHour, units)) \(units == .metric ? "metres" : "feet") an hour"
    }

    private func plural(_ word: String, _ one: Bool) -> String { one ? word : word + "s" }
}
