/// A streaming step detector: one sample in, zero or more confirmed step
/// instants out. Implementations keep O(1) state and never allocate per
/// sample; time comes only from the samples.
public protocol StepDetector: Sendable {
    /// Feeds one sample. `onStep` is called with the instant (same clock as
    /// `sample.t`) of every step confirmed by this sample, oldest first. A
    /// detector may confirm a step some time after it happened.
    mutating func process(_ sample: IMUSample, onStep: (Double) -> Void)
    /// Forgets everything (e.g. after a gap in the sample stream).
    mutating func reset()
}

/// The detectors MoonRunner ships, selectable by name in the config and in
/// `moonrunner analyze --detector`.
public enum StepDetectorKind: String, Sendable, CaseIterable, Codable {
    /// The seed article's rule: a local minimum of |a|−1 below −0.12 g.
    case seed
    /// The default streaming detector.
    case adaptive
}

/// A detector chosen at run time without existential dispatch per sample.
public struct AnyStepDetector: StepDetector {
    private enum Impl: Sendable {
        case seed(SeedStepDetector)
        case adaptive(AdaptiveStepDetector)
    }
    private var impl: Impl
    public let kind: StepDetectorKind

    public init(kind: StepDetectorKind) {
        self.kind = kind
        switch kind {
        case .seed: impl = .seed(SeedStepDetector())
        case .adaptive: impl = .adaptive(AdaptiveStepDetector())
        }
    }

    public mutating func process(_ sample: IMUSample, onStep: (Double) -> Void) {
        switch impl {
        case .seed(var d):
            d.process(sample, onStep: onStep)
            impl = .seed(d)
        case .adaptive(var d):
            d.process(sample, onStep: onStep)
            impl = .adaptive(d)
        }
    }

    public mutating func reset() {
        impl = AnyStepDetector(kind: kind).impl
    }
}
