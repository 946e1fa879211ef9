/// Cadence in steps per minute from step instants, smoothed over the last few
/// steps, falling to zero when steps stop. O(1) memory.
public struct CadenceEstimator: Sendable {
    /// Step intervals longer than this break the rhythm (not walking any more).
    public var maxInterval: Double = 2.0
    /// Smoothing weight of the newest interval.
    public var alpha: Double = 0.25

    private var lastStep = -Double.infinity
    private var meanInterval = 0.0

    public init() {}

    /// Records one step instant.
    public mutating func addStep(at t: Double) {
        let dt = t - lastStep
        lastStep = t
        guard dt > 0, dt <= maxInterval else { meanInterval = 0; return }
        meanInterval = meanInterval == 0 ? dt : meanInterval + alpha * (dt - meanInterval)
    }

    /// Steps per minute at time `now`; 0 when no step came for `maxInterval`.
    public func cadence(at now: Double) -> Double {
        guard meanInterval > 0, now - lastStep <= maxInterval else { return 0 }
        return 60 / meanInterval
    }
}
