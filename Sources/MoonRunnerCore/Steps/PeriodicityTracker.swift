/// How periodic a gait signal has been over the last few seconds, and with
/// which step period: a running (exponentially weighted) autocorrelation.
///
/// Walking and running repeat every step (and every stride, two steps);
/// gestures, talking and desk work do not. The autocorrelation is computed
/// on the band-passed |a| resampled to a fixed tick rate, so the same lags
/// and time constants hold at any sensor rate, and it costs one SIMD
/// multiply-add per tick (no per-sample trigonometry, no allocation).
public struct PeriodicityTracker: Sendable {
    /// Rate of the internal ticks, Hz. 20 Hz keeps the 3.5 Hz gait band and
    /// resolves a step period to 50 ms before interpolation.
    public static let tickRate: Float = 20
    /// Longest lag, in ticks: 2 s covers a stride at 60 steps/min.
    public static let maxLag = 40
    /// Shortest lag examined, in ticks: 0.25 s, a step at 240 steps/min.
    public static let minLag = 5

    /// A later peak must beat an earlier one by this factor to be taken as the period.
    nonisolated(unsafe) static var multipleRatio: Float = 0.85
    nonisolated(unsafe) static var halfMin: Float = -0.1

    /// Lane k holds the signal k ticks ago.
    private var history = SIMD64<Float>()
    /// Lane k holds the running mean of x[n]·x[n−k]; lane 0 is the power.
    private var products = SIMD64<Float>()
    private var weight: Float
    private var ticks = 0

    /// - Parameter timeConstant: memory of the averages, seconds.
    public init(timeConstant: Double) {
        weight = 1 / (Float(timeConstant) * Self.tickRate)
    }

    /// Mean power of the signal over the memory (g²).
    public var power: Float { products[0] }

    /// Adds the signal value of the next tick.
    @inline(__always)
    public mutating func push(_ x: Float) {
        // Shift the history by one lane (lane 63 falls off) and insert x.
        withUnsafeMutableBytes(of: &history) { raw in
            guard let base = raw.baseAddress else { return }
            let stride = MemoryLayout<Float>.stride
            (base + stride).copyMemory(from: base, byteCount: 63 * stride)
            raw.storeBytes(of: x, toByteOffset: 0, as: Float.self)
        }
        products += weight * (x * history - products)
        ticks += 1
    }

    /// Normalised autocorrelation at `lag` ticks (fractional lags interpolate).
    @inline(__always)
    public func correlation(atLag lag: Float) -> Float {
        let p = products[0]
        guard p > 0 else { return 0 }
        let i = max(0, min(Int(lag), Self.maxLag))
        let f = lag - Float(i)
        let a = products[i], b = products[min(i + 1, Self.maxLag)]
        return (a + f * (b - a)) / p
    }

    /// True when the autocorrelation has a local maximum within a tick of `lag`.
    private func hasPeak(near lag: Float) -> Bool {
        let k0 = max(Self.minLag, Int(lag))
        for k in k0...(k0 + 1) where products[k] >= products[k - 1] && products[k] >= products[k + 1] {
            return true
        }
        return false
    }

    /// The strongest repetition between `minLag` and `maxLag`.
    ///
    /// Returns its normalised autocorrelation (`score`, 1 = perfectly
    /// periodic) and the step period in seconds. When the strongest lag is a
    /// stride (two unlike steps, e.g. a phone in one trouser pocket), half of
    /// it is one step: the signal one step apart is then still positively
    /// correlated, whereas half a period of a plain step rhythm is anti-
    /// correlated.
    public func analyse() -> (score: Float, stepPeriod: Float) {
        let p = products[0]
        guard p > 0, ticks > Self.maxLag else { return (0, 0) }
        // The global maximum first, then the shortest lag that comes close
        // to it: multiples of the period (two strides, ...) score alike.
        var top: Float = 0
        var k = Self.minLag
        while k < Self.maxLag {
            top = max(top, products[k])
            k += 1
        }
        var best = Self.minLag
        var bestValue = -Float.infinity
        k = Self.minLag
        while k < Self.maxLag {
            let v = products[k]
            if v >= Self.multipleRatio * top && v >= products[k - 1] && v >= products[k + 1] {
                best = k
                bestValue = v
                break
            }
            k += 1
        }
        guard bestValue > 0 else { return (0, 0) }
        // Parabolic refinement of the peak lag.
        let a = products[best - 1], c = products[best + 1]
        let den = a - 2 * bestValue + c
        let shift = den < 0 ? 0.5 * (a - c) / den : 0
        var lag = Float(best) + max(-0.5, min(0.5, shift))
        let score = bestValue / p
        if lag >= 2 * Float(Self.minLag) && correlation(atLag: lag / 2) > Self.halfMin {
            lag /= 2
        }
        return (score, lag / Self.tickRate)
    }
}
