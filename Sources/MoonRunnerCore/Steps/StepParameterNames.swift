/// The detector's parameters by name, for `moonrunner analyze --step-parameters`
/// and the evaluation that cross-validates them (Tests/Tools/eval_steps.py).
/// The daemon always runs the defaults.
extension AdaptiveStepDetector.Parameters {
    /// Every parameter, by its property name.
    public static let fields: [(name: String, path: any WritableKeyPath<Self, Double> & Sendable)] = [
        ("highPassHz", \.highPassHz),
        ("lowPassHz", \.lowPassHz),
        ("periodicityMemory", \.periodicityMemory),
        ("minStepPeriod", \.minStepPeriod),
        ("maxStepPeriod", \.maxStepPeriod),
        ("startScore", \.startScore),
        ("minSwing", \.minSwing),
        ("boutSteps", \.boutSteps),
        ("rhythmRatio", \.rhythmRatio),
        ("sameStep", \.sameStep),
        ("minInterval", \.minInterval),
        ("boutGap", \.boutGap),
        ("maxDelay", \.maxDelay),
        ("runningPeriod", \.runningPeriod),
        ("runningSwing", \.runningSwing),
        ("bridgePeriods", \.bridgePeriods),
        ("motionSwing", \.motionSwing),
        ("periodAgreement", \.periodAgreement),
        ("openingShare", \.openingShare),
    ]

    /// A parameter name that does not exist.
    public struct UnknownName: Error, CustomStringConvertible, Sendable {
        public var name: String
        public var description: String {
            "unknown step detector parameter '\(name)' (known: \(AdaptiveStepDetector.Parameters.fields.map(\.name).joined(separator: ", ")))"
        }
    }

    /// The defaults with `overrides` applied; throws on a name that does not exist.
    public init(overrides: [String: Double]) throws(UnknownName) {
        self.init()
        for (name, value) in overrides.sorted(by: { $0.key < $1.key }) {
            guard let field = Self.fields.first(where: { $0.name == name }) else { throw UnknownName(name: name) }
            self[keyPath: field.path] = value
        }
    }

    /// Every parameter with its value.
    public var values: [String: Double] {
        Dictionary(uniqueKeysWithValues: Self.fields.map { ($0.name, self[keyPath: $0.path]) })
    }
}
