/// A configuration value that cannot be used. The message names the key,
/// the value, and what is allowed; the daemon exits with EX_CONFIG (78).
public struct ConfigError: Error, Equatable, CustomStringConvertible, Sendable {
    public var key: String
    public var value: String
    public var allowed: String

    public init(key: String, value: String, allowed: String) {
        self.key = key
        self.value = value
        self.allowed = allowed
    }

    public var description: String {
        "invalid configuration: \(key): \(value.isEmpty ? "(empty)" : value) — \(allowed)"
    }

    /// sysexits.h EX_CONFIG.
    public static let exitCode: Int32 = 78
}

/// A YAML null as a reader hands it over: Yams's `NSNull` (the daemon makes it
/// conform) or the announcer's `ConfigNull`, so that Core needs no Foundation.
public protocol ConfigNullValue {}

/// The null of readers that do without Foundation.
public struct ConfigNull: ConfigNullValue, Sendable, Equatable {
    public init() {}
}

/// Strict checks of configuration values as a YAML reader hands them over
/// (`Any`: String, Int, Double, Bool, a `ConfigNullValue`, nested maps), shared by the
/// daemon's and the announcer's config files: each failure names the key,
/// the value and what is allowed.
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
        if v is any ConfigNullValue { return "null" }
        return "\(v)"
    }

    public static func string(_ k: String, _ v: Any, nonEmpty: Bool) throws(ConfigError) -> String {
        guard let s = v as? String else {
            if v is any ConfigNullValue && !nonEmpty { return "" }
            throw ConfigError(key: k, value: describe(v), allowed: "a string")
        }
        if nonEmpty && s.trimmingSpacesAndTabs().isEmpty {
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
