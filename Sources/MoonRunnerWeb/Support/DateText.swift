import MoonRunnerExport

/// Dates as the pages write them before the browser rewrites them in the
/// wearer's time zone: ISO 8601 for `<time datetime>` and a readable UTC
/// text for a phone without script. Integer calendar arithmetic (the
/// exports' `UTCTime.civil(fromDays:)`), so no locale data is loaded for it.
public enum DateText {
    public struct Civil: Equatable, Sendable {
        public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
        /// 0 Monday … 6 Sunday.
        public var weekday: Int
    }

    public static func civil(_ t: Double, offsetMinutes: Int = 0) -> Civil {
        let s = Int((t + Double(offsetMinutes) * 60).rounded(.down))
        let days = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        let secs = s - days * 86_400
        let (year, month, day) = UTCTime.civil(fromDays: Int64(days))
        // 1970-01-01 was a Thursday (3 with Monday = 0).
        let weekday = ((days % 7) + 7 + 3) % 7
        return Civil(year: Int(year), month: Int(month), day: Int(day), hour: secs / 3600, minute: secs / 60 % 60, second: secs % 60,
                     weekday: weekday)
    }

    /// `2024-05-01T07:30:05Z`.
    public static func iso(_ t: Double) -> String {
        let c = civil(t)
        return "\(c.year)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))Z"
    }

    /// `2024-05-01 07:30 UTC` (or `+01:00` with an offset).
    public static func readable(_ t: Double, offsetMinutes: Int? = nil) -> String {
        let c = civil(t, offsetMinutes: offsetMinutes ?? 0)
        return "\(c.year)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)) \(zone(offsetMinutes))"
    }

    /// `2024-05-01`.
    public static func day(_ t: Double, offsetMinutes: Int? = nil) -> String {
        let c = civil(t, offsetMinutes: offsetMinutes ?? 0)
        return "\(c.year)-\(two(c.month))-\(two(c.day))"
    }

    /// `UTC` or `UTC+05:30`.
    public static func zone(_ offsetMinutes: Int?) -> String {
        guard let m = offsetMinutes, m != 0 else { return "UTC" }
        return "UTC\(m < 0 ? "-" : "+")\(two(abs(m) / 60)):\(two(abs(m) % 60))"
    }

    /// The Monday 00:00 (wearer's time) of the week holding `t`, as a day number since 1970.
    public static func weekStart(_ t: Double, offsetMinutes: Int? = nil) -> Int {
        let s = Int((t + Double(offsetMinutes ?? 0) * 60).rounded(.down))
        let days = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        let weekday = ((days % 7) + 7 + 3) % 7
        return days - weekday
    }

    static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
