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
///
/// Each kind lives in its own stored property so that `process` mutates it
/// in place: wrapping it in an enum payload would copy the whole detector
/// out and back on every sample.
public struct AnyStepDetector: StepDetector {
    private var seed = SeedStepDetector()
    private var adaptive: AdaptiveStepDetector
    public let kind: StepDetectorKind

    public init(kind: StepDetectorKind, parameters: AdaptiveStepDetector.Parameters = .init()) {
        self.kind = kind
        adaptive = AdaptiveStepDetector(parameters: parameters)
    }

    public mutating func process(_ sample: IMUSample, onStep: (Double) -> Void) {
        switch kind {
        case .seed: seed.process(sample, onStep: onStep)
        case .adaptive: adaptive.process(sample, onStep: onStep)
        }
    }

    public mutating func reset() {
        seed.reset()
        adaptive.reset()
    }
}
