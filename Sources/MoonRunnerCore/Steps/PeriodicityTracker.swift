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
    /// (k = 0...maxLag; 0 is the power); then the power's own recent history,
    /// written twice like the signal. Stored inline so that the tracker is a
    /// plain value, and worked on through one pointer so that no lane is
    /// copied out one by one.
    private var storage: (SIMD64<Float>, SIMD64<Float>, SIMD64<Float>, SIMD64<Float>, SIMD64<Float>)
        = (.zero, .zero, .zero, .zero, .zero)
    private static let productsOffset = 128
    /// Lags 0...maxLag in blocks of eight.
    private static let chunks = (maxLag + 8) / 8
    private static let powerHistoryOffset = 192
    private var newest = 0
    private let weight: Float
    private var ticks = 0
    /// Least lagged power in the normalisation, as a share of the power now.
    static let minLaggedPower: Float = 0.25

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
            let base = raw.baseAddress.unsafelyUnwrapped
            let f = base.assumingMemoryBound(to: Float.self)
            let lags = UnsafeRawPointer(f + at)
            let products = f + Self.productsOffset
            let raw = UnsafeMutableRawPointer(products)
            // Eight lags at a time (lanes past maxLag are never read). The
            // ring is read before x is written into it (lag 0 is x itself),
            // so that the load never waits on that store.
            let stride = 8 * MemoryLayout<Float>.stride
            for chunk in 0..<Self.chunks {
                let o = chunk * stride
                var lagged = lags.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
                if chunk == 0 { lagged[0] = x }
                var v = raw.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
                v += w * (x * lagged - v)
                raw.storeBytes(of: v, toByteOffset: o, as: SIMD8<Float>.self)
            }
            f[at] = x
            f[at + 64] = x
            let history = f + Self.powerHistoryOffset
            history[at] = products[0]
            history[at + 64] = products[0]
        }
        ticks &+= 1
    }

    /// Reads the running products and the power history through a pointer.
    @inline(__always)
    private func withMemory<R>(_ body: (UnsafePointer<Float>, UnsafePointer<Float>) -> R) -> R {
        let at = newest
        return withUnsafeBytes(of: storage) { raw in
            let f = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Float.self)
            return body(f + Self.productsOffset, f + Self.powerHistoryOffset + at)
        }
    }

    /// Normalised autocorrelations r[k] = P[k] / √(P[0] · P[0] k ticks ago):
    /// the product of the signal with itself k ticks back, over the power of
    /// both. At a start the lagged power is still low, so this does not
    /// wait for the memory to fill with the new rhythm. Handed to `body` in
    /// a buffer on the stack (no heap allocation).
    private func withNormalised<R>(_ body: (UnsafePointer<Float>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 8 * Self.chunks) { r in
            let out = r.baseAddress.unsafelyUnwrapped
            withMemory { products, history in
                let p = products[0]
                // The lagged power counts at least a quarter of the power
                // now: a lone burst after silence must not look periodic.
                guard p > 0 else {
                    out.initialize(repeating: 0, count: Self.maxLag + 1)
                    return
                }
                let floor = SIMD8<Float>(repeating: Self.minLaggedPower * p)
                let stride = 8 * MemoryLayout<Float>.stride
                let own = UnsafeRawPointer(products), lagged = UnsafeRawPointer(history)
                let dest = UnsafeMutableRawPointer(out)
                for chunk in 0..<Self.chunks {
                    let o = chunk * stride
                    let h = pointwiseMax(lagged.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self), floor)
                    let r = own.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self) / (p * h).squareRoot()
                    dest.storeBytes(of: r, toByteOffset: o, as: SIMD8<Float>.self)
                }
            }
            return body(UnsafePointer(out))
        }
    }

    /// Normalised autocorrelation at a (fractional) lag in ticks.
    func correlation(atLag lag: Float) -> Float {
        withNormalised { r in Self.correlation(r, lag) }
    }

    private static func correlation(_ r: UnsafePointer<Float>, _ lag: Float) -> Float {
        let i = max(0, min(Int(lag), maxLag - 1))
        let f = lag - Float(i)
        return r[i] + f * (r[i + 1] - r[i])
    }

    /// The strongest repetition between `minLag` and `maxLag`: its
    /// normalised autocorrelation (`score`, 1 = perfectly periodic; 0 when
    /// nothing repeats) and the step period in seconds.
    func analyse() -> (score: Float, stepPeriod: Double) {
        guard ticks > Self.maxLag else { return (0, 0) }
        let longest = longestStep
        return withNormalised { r in Self.analyse(r, longestStep: longest) }
    }

    private static func analyse(_ r: UnsafePointer<Float>, longestStep: Float) -> (score: Float, stepPeriod: Double) {
        var top: Float = 0
        for k in minLag..<maxLag {
            top = max(top, r[k])
        }
        guard top > 0 else { return (0, 0) }
        // The shortest lag whose peak comes close to the strongest.
        var best = 0
        for k in minLag..<maxLag {
            let v = r[k]
            if v >= multipleShare * top, v >= r[k - 1], v >= r[k + 1] {
                best = k
                break
            }
        }
        guard best > 0 else { return (0, 0) }
        let a = r[best - 1], v = r[best], c = r[best + 1]
        let den = a - 2 * v + c
        let shift = den < 0 ? 0.5 * (a - c) / den : 0
        var lag = Float(best) + max(-0.5, min(0.5, shift))
        if lag >= 2 * Float(minLag), lag > longestStep || correlation(r, lag / 2) > halfLagCorrelation {
            // The dominant lag is a stride of two unlike steps (a phone in
            // one trouser pocket, a hip belt): one step is half of it. A lag
            // too long for a step can only be a stride.
            lag /= 2
        }
        return (v, Double(lag) / GaitBandSignal.tickRate)
    }
}
