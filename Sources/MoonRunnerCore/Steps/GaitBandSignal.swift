/// |a| band-passed to the gait band and resampled to fixed ticks.
///
/// Everything downstream of this (peak picking, periodicity) sees the same
/// 20 Hz stream whatever the sensor's rate (25–200 Hz or irregular), which
/// is what makes the step detector rate-independent. The band-pass runs at
/// the sensor's rate, designed for the measured rate, and doubles as the
/// anti-alias filter of the resampling. Orientation-free: only |a| is used.
struct GaitBandSignal: Sendable {
    /// Tick rate, Hz: well above twice the 3.5 Hz band edge.
    static let tickRate = 20.0
    static let tickInterval = 1 / tickRate
    /// A pause in the sample stream longer than this breaks the filters' history.
    static let maxSampleGap = 0.5

    enum Feed {
        /// The sample was used; ticks may be ready.
        case ok
        /// The sample came after a gap or a clock jump: everything restarts from it.
        case restarted
        /// Not usable (non-finite, repeated or backwards time).
        case ignored
    }

    private let highPassHz: Double
    private let lowPassHz: Double
    private var highPass = Biquad()
    private var lowPass = Biquad()
    private var meanDt = 0.0
    private var lastDt = 0.0
    private var designedDt = 0.0
    private var lastT = Double.nan
    private var y = 0.0
    private var previousY = 0.0
    private var nextTickT = Double.nan

    init(highPassHz: Double, lowPassHz: Double) {
        self.highPassHz = highPassHz
        self.lowPassHz = lowPassHz
    }

    /// Feeds |a| (in g) at sample time `t`.
    @inline(__always)
    mutating func feed(t: Double, magnitude m: Double) -> Feed {
        guard t.isFinite, m.isFinite else { return .ignored }
        guard lastT.isFinite else {
            lastT = t
            y = 0
            previousY = 0
            // Filters wait for the second sample, when a rate is known.
            highPass = Biquad()
            lowPass = Biquad()
            meanDt = 0
            designedDt = 0
            nextTickT = t
            firstMagnitude = m
            return .ok
        }
        let dt = t - lastT
        if dt <= 0 { return .ignored }
        if dt > Self.maxSampleGap {
            restart(t: t, magnitude: m)
            return .restarted
        }
        lastT = t
        lastDt = dt
        meanDt = meanDt == 0 ? dt : meanDt + 0.02 * (dt - meanDt)
        if designedDt == 0 || abs(meanDt - designedDt) > 0.05 * designedDt {
            redesign(settleAt: designedDt == 0 ? firstMagnitude : nil)
        }
        previousY = y
        y = lowPass.step(highPass.step(m))
        return .ok
    }

    private var firstMagnitude = 1.0

    @inline(never)
    private mutating func restart(t: Double, magnitude m: Double) {
        self = GaitBandSignal(highPassHz: highPassHz, lowPassHz: lowPassHz)
        _ = feed(t: t, magnitude: m)
    }

    /// Designs the filters for the measured rate; the first design starts
    /// them in their steady state for the first |a|, so gravity makes no
    /// transient.
    private mutating func redesign(settleAt m: Double?) {
        designedDt = meanDt
        let fs = 1 / meanDt
        highPass = .highPass(cutoff: highPassHz, fs: fs)
        lowPass = .lowPass(cutoff: lowPassHz, fs: fs)
        if let m {
            highPass.settle(at: m)
            lowPass.settle(at: 0)
        }
    }

    /// The next tick at or before the latest sample, if any: its instant and
    /// the band-passed |a| there (linear interpolation between samples).
    @inline(__always)
    mutating func nextTick() -> (t: Double, value: Double)? {
        guard designedDt > 0, nextTickT <= lastT else { return nil }
        let t = nextTickT
        nextTickT += Self.tickInterval
        let back = (lastT - t) / lastDt
        let value = back >= 1 ? previousY : y - back * (y - previousY)
        return (t, value)
    }
}
