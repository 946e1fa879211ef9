/// One inertial sample on the sensor's own sample clock.
///
/// Acceleration is in g with gravity included (1 g = 9.80665 m/s²); rotation
/// rate is in rad/s and is NaN on every axis when the sensor has no gyroscope.
/// A plain value with no references, so a stream of them never allocates.
public struct IMUSample: Sendable, Equatable {
    /// Sample instant in seconds (trace clock or the driver's sample clock).
    public var t: Double
    public var ax: Double
    public var ay: Double
    public var az: Double
    public var gx: Double
    public var gy: Double
    public var gz: Double

    public init(t: Double, ax: Double, ay: Double, az: Double,
                gx: Double = .nan, gy: Double = .nan, gz: Double = .nan) {
        self.t = t
        self.ax = ax
        self.ay = ay
        self.az = az
        self.gx = gx
        self.gy = gy
        self.gz = gz
    }

    /// True when the rotation rate is present.
    @inlinable public var hasGyro: Bool { gx.isFinite && gy.isFinite && gz.isFinite }

    /// |a| in g.
    @inlinable public var accelMagnitude: Double { (ax * ax + ay * ay + az * az).squareRoot() }

    /// |ω| in rad/s, or 0 without a gyroscope.
    @inlinable public var gyroMagnitude: Double {
        hasGyro ? (gx * gx + gy * gy + gz * gz).squareRoot() : 0
    }

    /// A sample is usable when every present value is finite and physically plausible
    /// (MPU-6050 family full scale is at most ±16 g and ±2000 °/s ≈ 35 rad/s).
    @inlinable public var isPlausible: Bool {
        guard t.isFinite, ax.isFinite, ay.isFinite, az.isFinite else { return false }
        guard abs(ax) <= 32, abs(ay) <= 32, abs(az) <= 32 else { return false }
        if gx.isNaN && gy.isNaN && gz.isNaN { return true }
        return hasGyro && abs(gx) <= 70 && abs(gy) <= 70 && abs(gz) <= 70
    }
}
