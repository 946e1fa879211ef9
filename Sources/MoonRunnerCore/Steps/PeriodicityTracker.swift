/// How periodic the gait signal has been over the last few seconds, and with
/// which step period: a running (exponentially weighted) autocorrelation of
/// the ticked signal.
///
/// Walking and running repeat every step (and every stride, two steps);
/// gestures, talking and desk work do not. Working on fixed ticks keeps lags
/// and time constants the same at any sensor rate; one tick costs a shift
/// and a SIMD multiply-add, with no trigonometry and no allocation.
struct PeriodicityTracker: Sendable {
    /// Longest lag, in ticks: 2 s, a stride at 60 steps/min.
    static let maxLag = 40
    /// Shortest lag, in ticks: 0.25 s, a step at 240 steps/min.
    static let minLag = 5
    /// A later (longer) lag is only preferred over an earlier peak that
    /// reaches this share of it: multiples of the period score nearly alike.
    static let multipleShare: Float = 0.85
    /// Half the dominant lag is one step (the dominant lag is a stride) when
    /// it is too long for a step, or when the signal one half-lag apart is
    /// correlated at least this much; half a period of a plain step rhythm is
    /// strongly anti-correlated instead.
    static let halfLagCorrelation: Float = -0.1

    /// The signal's recent ticks, newest at `newest`, written twice (at i
    /// and i + 64) so that lags 0...maxLag are always one contiguous run
    /// `newest + k` without shifting; then the running means of x[n]·x[n−k]
    /// (k = 0...maxLag; 0 is the power). Stored inline so that the tracker
    /// is a plain value, and worked on through one pointer so that no lane
    /// is copied out one by one.
    private var storage: (SIMD64<Float>, SIMD64<Float>, SIMD64<Float>) = (.zero, .zero, .zero)
    private static let productsOffset = 128
    private var newest = 0
    private let weight: Float
    private var ticks = 0

    /// Longest step period, in ticks: a longer dominant lag must be a stride.
    private let longestStep: Float

    /// - Parameters:
    ///   - timeConstant: memory of the averages, seconds.
    ///   - longestStep: longest step period of walking, seconds.
    init(timeConstant: Double, longestStep: Double = 0.85) {
        weight = Float(1 / (timeConstant * GaitBandSignal.tickRate))
        self.longestStep = Float(longestStep * GaitBandSignal.tickRate)
    }

    /// Adds the signal value of the next tick.
    @inline(__always)
    mutating func push(_ x: Float) {
        let w = weight
        newest = (newest &- 1) & 63
        let at = newest
        withUnsafeMutableBytes(of: &storage) { raw in
            let f = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Float.self)
            f[at] = x
            f[at + 64] = x
            let lags = f + at
            let products = f + Self.productsOffset
            for k in 0...Self.maxLag {
                products[k] += w * (x * lags[k] - products[k])
            }
        }
        ticks &+= 1
    }

    /// Reads the running products through a pointer.
    @inline(__always)
    private func withProducts<R>(_ body: (UnsafePointer<Float>) -> R) -> R {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Float.self) + Self.productsOffset)
        }
    }

    /// Normalised autocorrelation at a (fractional) lag in ticks.
    func correlation(atLag lag: Float) -> Float {
        withProducts { products in Self.correlation(products, lag) }
    }

    private static func correlation(_ products: UnsafePointer<Float>, _ lag: Float) -> Float {
        let p = products[0]
        guard p > 0 else { return 0 }
        let i = max(0, min(Int(lag), maxLag - 1))
        let f = lag - Float(i)
        return (products[i] + f * (products[i + 1] - products[i])) / p
    }

    /// The strongest repetition between `minLag` and `maxLag`: its
    /// normalised autocorrelation (`score`, 1 = perfectly periodic; 0 when
    /// nothing repeats) and the step period in seconds.
    func analyse() -> (score: Float, stepPeriod: Double) {
        guard ticks > Self.maxLag else { return (0, 0) }
        let longest = longestStep
        return withProducts { products in Self.analyse(products, longestStep: longest) }
    }

    private static func analyse(_ products: UnsafePointer<Float>, longestStep: Float) -> (score: Float, stepPeriod: Double) {
        let p = products[0]
        guard p > 0 else { return (0, 0) }
        var top: Float = 0
        for k in minLag..<maxLag {
            top = max(top, products[k])
        }
        guard top > 0 else { return (0, 0) }
        // The shortest lag whose peak comes close to the strongest.
        var best = 0
        for k in minLag..<maxLag {
            let v = products[k]
            if v >= multipleShare * top, v >= products[k - 1], v >= products[k + 1] {
                best = k
                break
            }
        }
        guard best > 0 else { return (0, 0) }
        let a = products[best - 1], v = products[best], c = products[best + 1]
        let den = a - 2 * v + c
        let shift = den < 0 ? 0.5 * (a - c) / den : 0
        var lag = Float(best) + max(-0.5, min(0.5, shift))
        if lag >= 2 * Float(minLag), lag > longestStep || correlation(products, lag / 2) > halfLagCorrelation {
            // The dominant lag is a stride of two unlike steps (a phone in
            // one trouser pocket, a hip belt): one step is half of it. A lag
            // too long for a step can only be a stride.
            lag /= 2
        }
        return (v / p, Double(lag) / GaitBandSignal.tickRate)
    }
}
