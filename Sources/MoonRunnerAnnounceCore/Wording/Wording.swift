import MoonRunnerCore

/// How one language says numbers, distances, durations, paces and
/// directions, so that a table's templates get words people would say
/// ("5 minutes 12", "五分十二秒") rather than a display format ("5:12").
public protocol Wording: Sendable {
    /// A whole count (lap 3, 10 minutes).
    func count(_ n: Int) -> String
    /// A whole number of km or miles: "3 kilometres", "三公里".
    func units(_ n: Int, _ units: UnitSystem) -> String
    /// A distance run so far: "4.02 kilometres".
    func distance(_ metres: Double, _ units: UnitSystem) -> String
    /// A short distance ahead (course to go, off course): "500 metres", "1 kilometre".
    func nearDistance(_ metres: Double, _ units: UnitSystem) -> String
    /// A span of time: "5 minutes 12", "1 hour 3 minutes".
    func duration(_ seconds: Double) -> String
    /// Seconds per km or mile as people say a pace: "5 12".
    func pace(_ secondsPerUnit: Double) -> String
    /// The unit a pace is per: "kilometre", "公里".
    func unitName(_ units: UnitSystem) -> String
    /// One of the 8 compass points for a bearing in degrees.
    func direction(_ bearing: Double) -> String
    /// A speed in m/s as a rider hears it, whole km/h or mph: "24 kilometres an hour".
    func speed(_ metresPerSecond: Double, _ units: UnitSystem) -> String
    /// A climb rate in m/h, to the ten: "420 metres an hour", or feet.
    func climbRate(_ metresPerHour: Double, _ units: UnitSystem) -> String
    /// What goes between two sentences said one after the other: a space, or nothing after "。".
    var sentenceBreak: String { get }
}

/// Shared arithmetic of the wordings.
enum Clock {
    /// Whole hours, minutes and seconds of a non-negative span (rounded to the second).
    static func parts(_ seconds: Double) -> (h: Int, m: Int, s: Int) {
        let total = seconds.isFinite ? max(0, Int(seconds.rounded())) : 0
        return (total / 3600, (total / 60) % 60, total % 60)
    }

    /// 0 = north, 1 = north-east, ... 7 = north-west.
    static func octant(_ bearing: Double) -> Int {
        guard bearing.isFinite else { return 0 }
        let b = bearing.truncatingRemainder(dividingBy: 360) + (bearing < 0 ? 360 : 0)
        return Int((b / 45).rounded()) % 8
    }

    /// `value` with at most `decimals` decimals, trailing zeros dropped: "4.02", "3", "12.5".
    static func decimal(_ value: Double, decimals: Int) -> String {
        var digits = value.fixed(decimals)
        if digits.contains(".") {
            while digits.hasSuffix("0") { digits.removeLast() }
            if digits.hasSuffix(".") { digits.removeLast() }
        }
        return digits
    }

    /// Whole km/h or mph of a speed in m/s.
    static func perHour(_ metresPerSecond: Double, _ units: UnitSystem) -> Int {
        Int((max(0, metresPerSecond.isFinite ? metresPerSecond : 0) * 3600 / units.metresPerUnit).rounded())
    }

    /// A climb rate in m/h as metres or feet an hour, to the ten (a hiker's precision).
    static func climbTens(_ metresPerHour: Double, _ units: UnitSystem) -> Int {
        let v = max(0, metresPerHour.isFinite ? metresPerHour : 0) / (units == .metric ? 1 : 0.3048)
        return Int((v / 10).rounded()) * 10
    }

    /// Two decimals under 10 units, one above: how precisely people say a distance.
    static func distanceDigits(_ value: Double) -> String {
        decimal(value, decimals: value < 10 ? 2 : 1)
    }
}
