import MoonRunnerCore

/// Mandarin in characters, numbers included ("三点五公里", "五分十二秒"):
/// espeak-ng's Mandarin voice drops the point of "3.5" and would read a
/// digit string as one number, so the numbers are written out here.
public struct MandarinWording: Wording {
    public init() {}

    static let digits = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"]

    /// A whole number in characters: 12 → 十二, 105 → 一百零五, 20000 → 两万.
    public func number(_ n: Int) -> String {
        if n < 0 { return "负" + number(-n) }
        if n < 10 { return Self.digits[n] }
        if n >= 100_000_000 { return String(n) }
        if n >= 10_000 {
            let high = n / 10_000, low = n % 10_000
            let head = (high == 2 ? "两" : number(high)) + "万"
            if low == 0 { return head }
            return head + (low < 1000 ? "零" + belowTenThousand(low, head: false) : number(low))
        }
        return belowTenThousand(n, head: true)
    }

    /// 1–9999; `head` when nothing comes before it (十二 rather than 一十二).
    private func belowTenThousand(_ n: Int, head: Bool) -> String {
        // Below 10,000: 千, 百, 十 with 零 for a gap, and 十 rather than 一十 at the head.
        let names = ["千", "百", "十", ""]
        let values = [n / 1000, (n / 100) % 10, (n / 10) % 10, n % 10]
        var out = ""
        var gap = false
        for (i, v) in values.enumerated() {
            if v == 0 {
                if !out.isEmpty { gap = true }
                continue
            }
            if gap { out += "零"; gap = false }
            if i == 2 && v == 1 && out.isEmpty && head {
                out += "十"
            } else {
                out += Self.digits[v] + names[i]
            }
        }
        return out
    }

    /// A quantity before a measure word: 2 is 两 (两公里, 两分钟), and so is
    /// a leading 2 of hundreds and more (两百米, 两千米).
    public func quantity(_ n: Int) -> String {
        let text = number(n)
        guard n == 2 || (n >= 100 && text.hasPrefix("二")) else { return text }
        return "两" + text.dropFirst()
    }

    public func count(_ n: Int) -> String { number(n) }

    public var sentenceBreak: String { "" }

    public func units(_ n: Int, _ units: UnitSystem) -> String { quantity(n) + unitName(units) }

    public func distance(_ metres: Double, _ units: UnitSystem) -> String {
        decimalQuantity(Clock.distanceDigits(max(0, metres) / units.metresPerUnit)) + unitName(units)
    }

    public func nearDistance(_ metres: Double, _ units: UnitSystem) -> String {
        switch units {
        case .metric:
            if metres >= 1000 { return distance(metres, units) }
            return quantity(Int((metres / 10).rounded()) * 10) + "米"
        case .imperial:
            if metres >= units.metresPerUnit - 5 { return distance(metres, units) }
            return quantity(Int((metres / 0.9144 / 10).rounded()) * 10) + "码"
        }
    }

    public func duration(_ seconds: Double) -> String {
        let (h, m, s) = Clock.parts(seconds)
        if h > 0 { return quantity(h) + "小时" + (m > 0 ? number(m) + "分钟" : "") }
        if m == 0 { return number(s) + "秒" }
        if s == 0 { return quantity(m) + "分钟" }
        return quantity(m) + "分" + number(s) + "秒"
    }

    public func pace(_ secondsPerUnit: Double) -> String {
        let (h, m, s) = Clock.parts(secondsPerUnit)
        let minutes = h * 60 + m
        if s == 0 { return quantity(minutes) + "分钟" }
        return quantity(minutes) + "分" + number(s) + "秒"
    }

    public func unitName(_ units: UnitSystem) -> String { units == .metric ? "公里" : "英里" }

    public func direction(_ bearing: Double) -> String {
        ["北", "东北", "东", "东南", "南", "西南", "西", "西北"][Clock.octant(bearing)]
    }

    public func speed(_ metresPerSecond: Double, _ units: UnitSystem) -> String {
        "每小时" + quantity(Clock.perHour(metresPerSecond, units)) + unitName(units)
    }

    public func climbRate(_ metresPerHour: Double, _ units: UnitSystem) -> String {
        "每小时" + quantity(Clock.climbTens(metresPerHour, units)) + (units == .metric ? "米" : "英尺")
    }

    /// "4.02" → 四点零二, "2" → 两.
    private func decimalQuantity(_ digits: String) -> String {
        let parts = digits.split(separator: ".", maxSplits: 1)
        let whole = Int(parts.first ?? "0") ?? 0
        guard parts.count == 2 else { return quantity(whole) }
        let fraction = parts[1].compactMap { $0.wholeNumberValue }.map { Self.digits[$0] }.joined()
        return number(whole) + "点" + fraction
    }
}
