/// One axis (east, north or up) of a constant-velocity Kalman filter:
/// position, velocity and their 2×2 covariance.
///
/// The GPS filter runs one per horizontal axis. With a process noise that is
/// the same in every direction and measurement errors given per axis (GST's
/// σ-lat / σ-lon), the axes do not couple, so two 2-state filters do the work
/// of one 4-state filter with no matrices and no allocation.
struct KalmanAxis: Sendable, Equatable {
    /// Position, metres.
    var p: Double
    /// Velocity, m/s.
    var v: Double
    /// Covariance: var(p), cov(p, v), var(v).
    var pp: Double
    var pv: Double
    var vv: Double

    init(position: Double, velocity: Double, positionVariance: Double, velocityVariance: Double) {
        p = position
        v = velocity
        pp = positionVariance
        pv = 0
        vv = velocityVariance
    }

    /// Moves the state `dt` seconds ahead under white acceleration noise of
    /// spectral density `q` (m²/s³).
    mutating func predict(dt: Double, q: Double) {
        p += v * dt
        let pp1 = pp + 2 * dt * pv + dt * dt * vv
        let pv1 = pv + dt * vv
        pp = pp1 + q * dt * dt * dt / 3
        pv = pv1 + q * dt * dt / 2
        vv += q * dt
    }

    /// Innovation of a position measurement `z` with variance `r`, and its variance.
    func positionInnovation(_ z: Double, variance r: Double) -> (y: Double, s: Double) {
        (z - p, pp + r)
    }

    mutating func updatePosition(_ z: Double, variance r: Double) {
        let s = pp + r
        guard s > 0 else { return }
        let k0 = pp / s, k1 = pv / s
        let y = z - p
        p += k0 * y
        v += k1 * y
        let pp1 = (1 - k0) * pp
        let pv1 = (1 - k0) * pv
        vv -= k1 * pv
        pp = pp1
        pv = pv1
    }

    mutating func updateVelocity(_ z: Double, variance r: Double) {
        let s = vv + r
        guard s > 0 else { return }
        let k0 = pv / s, k1 = vv / s
        let y = z - v
        p += k0 * y
        v += k1 * y
        let pp1 = pp - k0 * pv
        let pv1 = (1 - k1) * pv
        vv = (1 - k1) * vv
        pp = pp1
        pv = pv1
    }

    /// Holds the axis still: zero velocity, known exactly.
    mutating func freeze() {
        v = 0
        pv = 0
        vv = 0
    }
}
