/// Steps counted in one whole second of a session, with the cadence then:
/// the shape the store keeps per second, here so that pure statistics and
/// the exporters can use it without depending on the store.
public struct StepSecondSample: Sendable, Equatable, Codable {
    /// Engine-clock second (floor of the step times).
    public var second: Int64
    public var steps: Int
    /// Cadence estimate at that second, steps/min (both feet).
    public var cadence: Double

    public init(second: Int64, steps: Int, cadence: Double) {
        self.second = second
        self.steps = steps
        self.cadence = cadence
    }
}
