/// The detector's parameters by name, for `moonrunner analyze --step-parameters`,
/// `moonrunner step-sweep` and the evaluation that cross-validates them
/// (Tests/Tools/eval_steps.py).
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

    /// Every parameter with its value.
    public var values: [String: Double] {
        Dictionary(uniqueKeysWithValues: Self.fields.map { ($0.name, self[keyPath: $0.path]) })
    }
}
