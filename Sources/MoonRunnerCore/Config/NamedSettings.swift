/// Settings of a configuration by name (`KEY=VALUE` options of `moonrunner
/// analyze`), so that an evaluation can vary them without rebuilding: each
/// name sets one number; an unknown name, a value that is not a number or a
/// negative one is refused.
public struct NamedSettings<Config: Sendable>: Sendable {
    public struct Invalid: Error {}

    private let setters: [String: @Sendable (inout Config, Double) -> Void]

    public init(_ setters: [String: @Sendable (inout Config, Double) -> Void]) {
        self.setters = setters
    }

    public var keys: [String] { setters.keys.sorted() }

    /// `config` with the setting `KEY=VALUE` applied.
    public func apply(_ option: String, to config: Config) throws(Invalid) -> Config {
        let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let set = setters[parts[0]], let value = Double(parts[1]), value.isFinite, value >= 0 else {
            throw Invalid()
        }
        var c = config
        set(&c, value)
        return c
    }
}
