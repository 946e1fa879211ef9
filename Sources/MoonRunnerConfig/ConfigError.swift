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
