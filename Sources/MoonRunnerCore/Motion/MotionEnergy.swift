import Glibc

/// Running estimate of how much the body moves, from the IMU: the standard
/// deviation of |a| and the mean rotation rate over roughly the last second.
/// Exponential averages, so O(1) state at any sample rate.
public struct MotionEnergy: Sendable {
    /// Time constant of the averages, seconds.
    public var tau: Double = 0.5
    private var meanA = Double.nan
    private var meanA2 = 0.0
    private var meanGyro = 0.0
    private var lastT = Double.nan

    public init() {}

    /// Standard deviation of |a| in g.
    public var accelStd: Double { meanA.isFinite ? max(0, meanA2 - meanA * meanA).squareRoot() : 0 }
    /// Mean |ω| in rad/s (0 without a gyroscope).
    public var gyroMean: Double { meanGyro }

    public mutating func process(_ s: IMUSample) {
        let m = s.accelMagnitude
        guard meanA.isFinite, lastT.isFinite else {
            meanA = m
            meanA2 = m * m
            lastT = s.t
            return
        }
        let dt = s.t - lastT
        lastT = s.t
        guard dt > 0 else { return }
        let k = dt >= tau ? 1 : dt / tau
        meanA += k * (m - meanA)
        meanA2 += k * (m * m - meanA2)
        meanGyro += k * (s.gyroMagnitude - meanGyro)
    }
}
