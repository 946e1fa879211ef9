/// A steady climb or descent in the altitude: evidence that the wearer moves,
/// however slowly they cross the ground. A hiker on a 40 % slope at 0.25 m/s
/// (too slow for the Doppler speed to tell, `SlowProgress`) still climbs
/// 0.1 m/s; a standing barometer keeps within a few tenths of a metre.
///
/// The slope by least squares over the last `window` seconds (20 s on the
/// barometer's own shape, not the fused altitude; 60 s on GPS altitude, whose
/// errors wander over minutes) is evidence from `minRate` (0.08 m/s, 290 m/h)
/// when it changes at least 3·√2 σ over the window (σ 0.3 m on the barometer,
/// the fix's vertical error on GPS: 4–8 m asks for 0.3–0.6 m/s). Dated at the
/// window's middle, so a stop is dated where the wearer stopped. At most 64
/// fixes of arithmetic per fix, over a ring allocated once; time comes in.
public struct ClimbEvidence: Sendable {
    /// m/s; see the type's comment.
    public static let minRate = 0.08
    static let baroWindow = 20.0, gpsWindow = 60.0, baroSigma = 0.3
    private static let capacity = 64

    private var times = [Double](repeating: 0, count: Self.capacity)
    private var altitudes = [Double](repeating: 0, count: Self.capacity)
    private var count = 0
    private var next = 0
    private var source = AltitudeSource.gps

    public init() {}

    /// Forgets the altitudes (a new session, a gap).
    public mutating func reset() {
        count = 0
    }

    /// One fix's altitude (m, `AltitudeUpdate.shape`) from `source` and the
    /// fix's vertical 1σ (NaN: unknown), at engine time `t`; the terrain
    /// model's is weighed as GPS altitude, whose position error moves it. Returns when the wearer was climbing (the
    /// middle of the window), or nil when the altitude shows no climb or
    /// `judged` is false (the altitude is kept, the window not fitted: most
    /// of a fix's cost when auto-pause has an IMU to ask instead).
    public mutating func add(altitude: Double, sigma: Double, source: AltitudeSource, at t: Double,
                             judged: Bool = true) -> Double? {
        guard altitude.isFinite else { return nil }
        if source != self.source { count = 0 }  // each source's altitude has its own origin
        self.source = source
        let barometric = source == .barometric
        times[next] = t
        altitudes[next] = altitude
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
        guard judged else { return nil }
        let window = barometric ? Self.baroWindow : Self.gpsWindow
        let noise = barometric ? Self.baroSigma : (sigma.isFinite ? sigma : .infinity)
        guard let slope = slope(since: t - window, minimumSpan: 0.75 * window) else { return nil }
        let rate = abs(slope)
        guard rate >= Self.minRate, rate * window >= 3 * 2.0.squareRoot() * noise else { return nil }
        return t - window / 2
    }

    /// Least-squares slope (m/s) of the altitudes since `start`, nil when they span less than `minimumSpan` s.
    private func slope(since start: Double, minimumSpan: Double) -> Double? {
        var n = 0.0, st = 0.0, sa = 0.0, stt = 0.0, sta = 0.0
        var first = Double.infinity, last = -Double.infinity
        for k in 0..<count {
            let i = (next - 1 - k + Self.capacity) % Self.capacity
            let t = times[i]
            guard t >= start else { break }
            let dt = t - start, a = altitudes[i]
            n += 1; st += dt; sa += a; stt += dt * dt; sta += dt * a
            first = min(first, t)
            last = max(last, t)
        }
        let d = n * stt - st * st
        guard n >= 3, last - first >= minimumSpan, d > 0 else { return nil }
        return (n * sta - st * sa) / d
    }
}
