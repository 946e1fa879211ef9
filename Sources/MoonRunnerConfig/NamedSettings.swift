/// The one way a tuning setting is given by name: `KEY=VALUE` on a command
/// line (`moonrunner analyze --course-option`, `--terrain-option`,
/// `--activity-option`, the course scenarios' sweep) or a JSON object of
/// names to numbers (`--step-parameters`), so that an evaluation can vary a
/// setting without rebuilding. Each name sets one number; an unknown name,
/// or a value that is not a finite number at or above 0, is refused.
public struct NamedSettings<Config>: Sendable {
    public typealias Setter = @Sendable (inout Config, Double) -> Void

    /// Why a setting was refused.
    public enum Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        /// Not of the form `KEY=VALUE`.
        case notKeyValue(String)
        case unknownName(String)
        /// A value that is not a finite number at or above 0.
        case badValue(name: String, value: String)

        public var description: String {
            switch self {
            case let .notKeyValue(text): "\(text): expected KEY=VALUE"
            case let .unknownName(name): "\(name): no such setting"
            case let .badValue(name, value): "\(name): \(value) is not a number at or above 0"
            }
        }
    }

    private let setters: [String: Setter]

    public init(_ setters: [String: Setter]) {
        self.setters = setters
    }

    /// Settings that are fields of `Config` by name.
    public init(fields: [(name: String, path: any WritableKeyPath<Config, Double> & Sendable)]) {
        var setters: [String: Setter] = [:]
        for field in fields {
            let path = field.path
            setters[field.name] = { config, value in config[keyPath: path] = value }
        }
        self.init(setters)
    }

    /// Every name, sorted.
    public var keys: [String] { setters.keys.sorted() }

    /// `config` with the setting `KEY=VALUE` applied.
    public func apply(_ option: String, to config: Config) throws(Invalid) -> Config {
        let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw .notKeyValue(option) }
        return try apply(name: parts[0], text: parts[1], to: config)
    }

    /// `config` with every setting of `values` applied, in the order of their names.
    public func apply(_ values: [String: Double], to config: Config) throws(Invalid) -> Config {
        var c = config
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            c = try apply(name: name, value: value, text: "\(value)", to: c)
        }
        return c
    }

    private func apply(name: String, text: String, to config: Config) throws(Invalid) -> Config {
        guard let value = Double(text) else {
            guard setters[name] != nil else { throw .unknownName(name) }
            throw .badValue(name: name, value: text)
        }
        return try apply(name: name, value: value, text: text, to: config)
    }

    private func apply(name: String, value: Double, text: String, to config: Config) throws(Invalid) -> Config {
        guard let set = setters[name] else { throw .unknownName(name) }
        guard value.isFinite, value >= 0 else { throw .badValue(name: name, value: text) }
        var c = config
        set(&c, value)
        return c
    }
}
