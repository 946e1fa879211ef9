/// The seed article's accelerometer rule (seeds/004), kept as the baseline
/// that every better detector is measured against.
///
/// g = |a| − 1 (in g); a step is a local minimum of g below −0.12 g; minima
/// closer than 0.259 s to the previous step are ignored; counting (re)starts
/// with the first step after a gap of 2 s or more. Unlike the article it
/// examines every sample rather than windows of ten, so no minimum is lost at
/// a window edge.
public struct SeedStepDetector: StepDetector {
    public static let threshold = -0.12
    public static let minInterval = 0.259
    public static let resetGap = 2.0

    private var prev2 = 0.0
    private var prev1 = 0.0
    private var prev1Time = -Double.infinity
    private var samples = 0
    private var lastStep = -Double.infinity

    public init() {}

    public mutating func process(_ sample: IMUSample, onStep: (Double) -> Void) {
        let g = sample.accelMagnitude - 1
        defer {
            prev2 = prev1
            prev1 = g
            prev1Time = sample.t
            samples += 1
        }
        guard samples >= 2 else { return }
        // prev1 is a local minimum when it is below both neighbours.
        guard prev1 < Self.threshold, prev1 < prev2, prev1 <= g else { return }
        let t = prev1Time
        if t - lastStep >= Self.minInterval {
            lastStep = t
            onStep(t)
        }
    }

    public mutating func reset() { self = SeedStepDetector() }
}
