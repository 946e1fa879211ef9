/// Reads Mandarin numerals back, written independently of `MandarinWording`,
/// so that a round trip checks the wording rather than repeating it (the
/// announcer's unit tests and the Mandarin end-to-end run).
public enum HanziNumber {
    public static let digits: [Character: Int] = ["零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
                                           "八": 8, "九": 9]
    public static let units: [Character: Int] = ["十": 10, "百": 100, "千": 1000]

    public static func parse(_ text: String) -> Int? {
        var total = 0, section = 0, digit: Int?
        for c in text {
            if c == "零" {
                digit = nil
            } else if let d = digits[c] {
                digit = d
            } else if let u = units[c] {
                section += (digit ?? 1) * u
                digit = nil
            } else if c == "万" {
                total += (section + (digit ?? 0)) * 10_000
                section = 0
                digit = nil
            } else {
                return nil
            }
        }
        return total + section + (digit ?? 0)
    }

    /// "三点九三" → 3.93
    public static func decimal(_ text: String) -> Double? {
        let parts = text.split(separator: "点", maxSplits: 1).map(String.init)
        guard let whole = parse(parts[0]) else { return nil }
        guard parts.count == 2 else { return Double(whole) }
        var fraction = 0.0, scale = 0.1
        for c in parts[1] {
            guard let d = digits[c] else { return nil }
            fraction += Double(d) * scale
            scale /= 10
        }
        return Double(whole) + fraction
    }
}

