/// |a| limited to the gait band and resampled to fixed ticks.
///
/// Everything downstream of this (peak picking, periodicity) sees the same
/// 20 Hz stream whatever the sensor's rate (25–200 Hz or irregular), which
/// is what makes the step detector rate-independent. The low-pass runs at
/// the sensor's rate, designed for the measured rate, and doubles as the
/// anti-alias filter of the resampling; the high-pass (which only removes
/// gravity and posture drift) runs on the ticks, so it is the same filter at
/// every sensor rate and costs one evaluation per tick instead of one per
/// sample. Orientation-free: only |a| is used.
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
    /// At the sensor's rate.
    private var lowPass = Biquad()
    /// At the tick rate.
    private var highPass = Biquad()
    private var meanDt = 0.0
    private var lastDt = 0.0
    private var designedDt = 0.0
    private var lastT = Double.nan
    /// Low-passed |a| at the latest sample and the one before.
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
            start(t: t, magnitude: m)
            return .ok
        }
        let dt = t - lastT
        if dt <= 0 { return .ignored }
        if dt > Self.maxSampleGap {
            self = GaitBandSignal(highPassHz: highPassHz, lowPassHz: lowPassHz)
            start(t: t, magnitude: m)
            return .restarted
        }
        lastT = t
        lastDt = dt
        meanDt = meanDt == 0 ? dt : meanDt + 0.02 * (dt - meanDt)
        if designedDt == 0 || abs(meanDt - designedDt) > 0.05 * designedDt {
            redesign()
        }
        previousY = y
        y = lowPass.step(m)
        return .ok
    }

    /// The first sample: both filters start in their steady state for it,
    /// so gravity makes no transient. The low-pass waits for the second
    /// sample, when a rate is known.
    @inline(never)
    private mutating func start(t: Double, magnitude m: Double) {
        lastT = t
        y = m
        previousY = m
        nextTickT = t
        highPass = .highPass(cutoff: highPassHz, fs: Self.tickRate)
        highPass.settle(at: m)
    }

    /// Designs the low-pass for the measured rate, settled at its latest
    /// output so that a redesign makes no transient.
    @inline(never)
    private mutating func redesign() {
        designedDt = meanDt
        lowPass = .lowPass(cutoff: lowPassHz, fs: 1 / meanDt)
        lowPass.settle(at: y)
    }

    /// The next tick at or before the latest sample, if any: its instant and
    /// the band-passed |a| there (linear interpolation between samples, then
    /// the high-pass).
    @inline(__always)
    mutating func nextTick() -> (t: Double, value: Double)? {
        guard designedDt > 0, nextTickT <= lastT else { return nil }
        let t = nextTickT
        nextTickT += Self.tickInterval
        let back = (lastT - t) / lastDt
        let value = back >= 1 ? previousY : y - back * (y - previousY)
        return (t, highPass.step(value))
    }
}
