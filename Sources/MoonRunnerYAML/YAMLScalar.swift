/// What a plain (unquoted) scalar means: Yams's default resolver and
/// constructors (YAML 1.1: `yes`/`on` are true, `0660` is octal, `1:30` is 90,
/// `_` separates digits), rule for rule and in the same order, so the
/// announcer's file reads as the daemon's does.
enum YAMLScalar {
    // Yams 6.2.2 Resolver.Rule's patterns, as they are there.
    nonisolated(unsafe) private static let bool = try! Regex(
        "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF")
    nonisolated(unsafe) private static let int = try! Regex(
        "[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+")
    nonisolated(unsafe) private static let float = try! Regex(
        "[-+]?(?:[0-9][0-9_]*)(?:\\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\\.[0-9_]+(?:[eE][-+][0-9]+)?"
            + "|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)")
    nonisolated(unsafe) private static let null = try! Regex("~|null|Null|NULL|")

    static func resolve(_ text: String) -> Any {
        if text.wholeMatch(of: bool) != nil, let b = boolean(text) { return b }
        if text.wholeMatch(of: int) != nil { return integer(text) ?? text }
        if text.wholeMatch(of: float) != nil { return double(text) ?? text }
        if text.wholeMatch(of: null) != nil { return YAMLNull() }
        return text
    }

    private static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on": true
        case "false", "no", "off": false
        default: nil
        }
    }

    /// Yams's `Int.construct`: the sign, then 0x, 0b, 0o or 0 (octal) prefixes, base 60 with colons.
    private static func integer(_ text: String) -> Int? {
        let digits = text.filter { $0 != "_" }
        if digits == "0" { return 0 }
        let negative = digits.hasPrefix("-")
        let hasSign = negative || digits.hasPrefix("+")
        let sign = negative ? "-" : ""
        let body = digits.dropFirst(hasSign ? 1 : 0)
        for (prefix, radix) in [("0x", 16), ("0b", 2), ("0o", 8), ("0", 8)] where body.hasPrefix(prefix) {
            return Int(sign + body.dropFirst(prefix.count), radix: radix)
        }
        if body.contains(":") { return sexagesimal(digits).flatMap { Int(exactly: $0) } }
        return Int(digits)
    }

    /// Yams's `Double.construct`.
    private static func double(_ text: String) -> Double? {
        switch text.lowercased() {
        case ".inf", "+.inf": return .infinity
        case "-.inf": return -.infinity
        case ".nan": return .nan
        default:
            let digits = text.filter { $0 != "_" }
            return digits.contains(":") ? sexagesimal(digits) : Double(digits)
        }
    }

    /// `-1:30:15.5` is −(1·3600 + 30·60 + 15.5).
    private static func sexagesimal(_ text: String) -> Double? {
        let negative = text.hasPrefix("-")
        let body = text.drop(while: { $0 == "-" || $0 == "+" })
        var total = 0.0
        for part in body.split(separator: ":", omittingEmptySubsequences: false) {
            guard let v = Double(part) else { return nil }
            total = total * 60 + v
        }
        return negative ? -total : total
    }
}
