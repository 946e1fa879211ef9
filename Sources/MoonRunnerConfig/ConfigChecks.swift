import MoonRunnerYAML

/// Strict checks of configuration values as `YAMLReader` hands them over
/// (`Any`: String, Int, Double, Bool, `YAMLNull`, nested maps), shared by the
/// daemon's, the web app's and the announcer's config files: each failure
/// names the key, the value and what is allowed.
public enum ConfigChecks {
    public static func flatten(_ map: [String: Any], prefix: String, into out: inout [(String, Any)]) {
        for (k, v) in map {
            let key = prefix.isEmpty ? k : "\(prefix).\(k)"
            if let sub = v as? [String: Any] {
                flatten(sub, prefix: key, into: &out)
            } else {
                out.append((key, v))
            }
        }
    }

    public static func describe(_ v: Any) -> String {
        if v is YAMLNull { return "null" }
        return "\(v)"
    }

    public static func string(_ k: String, _ v: Any, nonEmpty: Bool) throws(ConfigError) -> String {
        guard let s = v as? String else {
            if v is YAMLNull && !nonEmpty { return "" }
            throw ConfigError(key: k, value: describe(v), allowed: "a string")
        }
        if nonEmpty && s.unicodeScalars.allSatisfy(isSpaceOrTab) {
            throw ConfigError(key: k, value: s, allowed: "a non-empty string")
        }
        return s
    }

    public static func int(_ k: String, _ v: Any, _ range: ClosedRange<Int>) throws(ConfigError) -> Int {
        let n: Int?
        if v is Bool { n = nil } else if let i = v as? Int { n = i } else if let s = v as? String { n = Int(s) } else { n = nil }
        guard let n, range.contains(n) else {
            throw ConfigError(key: k, value: describe(v), allowed: "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    public static func double(_ k: String, _ v: Any, _ range: ClosedRange<Double>) throws(ConfigError) -> Double {
        let d: Double?
        if v is Bool { d = nil } else if let x = v as? Double { d = x } else if let i = v as? Int { d = Double(i) }
        else if let s = v as? String { d = Double(s) } else { d = nil }
        guard let d, d.isFinite, range.contains(d) else {
            throw ConfigError(key: k, value: describe(v),
                              allowed: "a number from \(fmt(range.lowerBound)) to \(fmt(range.upperBound))")
        }
        return d
    }

    public static func bool(_ k: String, _ v: Any) throws(ConfigError) -> Bool {
        guard let b = v as? Bool else { throw ConfigError(key: k, value: describe(v), allowed: "true or false") }
        return b
    }

    public static func oneOf(_ k: String, _ v: Any, _ allowed: [Int]) throws(ConfigError) -> Int {
        guard !(v is Bool), let i = v as? Int, allowed.contains(i) else {
            throw ConfigError(key: k, value: describe(v), allowed: "one of \(allowed.map(String.init).joined(separator: ", "))")
        }
        return i
    }

    public static func oneOfStrings(_ k: String, _ v: Any, _ allowed: [String]) throws(ConfigError) -> String {
        guard let s = v as? String, allowed.contains(s) else {
            throw ConfigError(key: k, value: describe(v), allowed: "one of \(allowed.joined(separator: ", "))")
        }
        return s
    }

    public static func enumValue<E: RawRepresentable & CaseIterable>(_ k: String, _ v: Any, _: E.Type) throws(ConfigError) -> E
    where E.RawValue == String {
        guard let s = v as? String, let e = E(rawValue: s) else {
            throw ConfigError(key: k, value: describe(v),
                              allowed: "one of \(E.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return e
    }

    /// A space separator (Zs) or a tab: what Foundation's `CharacterSet.whitespaces` holds.
    private static func isSpaceOrTab(_ s: Unicode.Scalar) -> Bool {
        s == "\t" || s.properties.generalCategory == .spaceSeparator
    }

    private static func fmt(_ d: Double) -> String {
        d.rounded() == d ? String(Int(d)) : String(d)
    }

    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var prev = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let cur = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
                prev = cur
            }
        }
        return row[b.count]
    }

    /// The known key nearest to a misspelt one, for "did you mean".
    public static func nearest(_ key: String, in known: [String]) -> String {
        known.min(by: { editDistance($0, key) < editDistance($1, key) }) ?? ""
    }
}
