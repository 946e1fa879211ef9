/// |a| limited to the gait band and resampled to fixed ticks.
///
/// Everything downstream (peak picking, periodicity) sees the same 20 Hz
/// stream whatever the sensor's rate (25–200 Hz or irregular): that makes the
/// step detector rate-independent. The low-pass runs at `minFilterRate` or
/// faster, where its digital response equals the analog one through the gait
/// band, a slower sensor's samples interpolated up first (a cubic through four
/// samples, one sample late), so 25 Hz steps are as sharp as 100 Hz ones; it
/// is also the ticks' anti-alias filter. The high-pass (gravity and posture
/// drift) runs on the ticks. Orientation-free: only |a| is used.
struct GaitBandSignal: Sendable {
    /// Tick rate, Hz: well above twice the 3.5 Hz band edge.
    static let tickRate = 20.0
    static let tickInterval = 1 / tickRate
    /// A pause in the sample stream longer than this breaks the filters' history.
    static let maxSampleGap = 0.5
    /// The low-pass never runs slower than this, Hz: designed at 80 Hz or
    /// more its response is the analog one to within about 1 % of its gain
    /// up to 3× the band edge; designed at 25 Hz (where 3.5 Hz is 0.14 of
    /// the rate) it would cut a step's harmonics at 5–7 Hz 12–38 % more and
    /// round the peaks a 100 Hz sensor sees sharp.
    static let minFilterRate = 80.0

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
    /// At the sensor's rate times `upsampling`.
    private var lowPass = Biquad()
    /// At the tick rate.
    private var highPass = Biquad()
    private var meanDt = 0.0
    private var designedDt = 0.0
    private var lastT = Double.nan
    /// Filter steps per sample: 1 at `minFilterRate` and above.
    private var upsampling = 1
    /// The last four samples' |a| (oldest first) and the last three instants:
    /// with `upsampling` > 1 the filter runs over the span from `m1` to `m2`
    /// (at `t1`, `t2`) while `m3` (at `t3`, the newest) has come in. With
    /// `upsampling` 1 only the newest is kept.
    private var m0 = 0.0, m1 = 0.0, m2 = 0.0, m3 = 0.0
    private var t1 = 0.0, t2 = 0.0, t3 = 0.0
    /// Interpolated filter steps of that span done, and how many it has.
    private var spanDone = 0
    private var spanSteps = 0
    /// Low-passed |a| at `outT` and `outDt` before it.
    private var y = 0.0
    private var previousY = 0.0
    private var outT = 0.0
    private var outDt = 0.0
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
        meanDt = meanDt == 0 ? dt : meanDt + 0.02 * (dt - meanDt)
        if designedDt == 0 || abs(meanDt - designedDt) > 0.05 * designedDt {
            redesign()
        }
        if upsampling == 1 {
            m3 = m
            t3 = t
            filter(m, at: t)
        } else {
            finishSpan()
            m0 = m1
            m1 = m2
            m2 = m3
            m3 = m
            t1 = t2
            t2 = t3
            t3 = t
            spanDone = 0
            spanSteps = upsampling
        }
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
        (m0, m1, m2, m3) = (m, m, m, m)
        (t1, t2, t3) = (t, t, t)
        outT = t
        nextTickT = t
        highPass = .highPass(cutoff: highPassHz, fs: Self.tickRate)
        highPass.settle(at: m)
    }

    /// Designs the low-pass for the measured rate, settled at its latest
    /// output so that a redesign makes no transient. A change of
    /// `upsampling` from 1 starts the spans at the newest sample (filtered
    /// already); a change to 1 filters the sample still waiting for its span.
    @inline(never)
    private mutating func redesign() {
        finishSpan()
        designedDt = meanDt
        let steps = max(1, Int((meanDt * Self.minFilterRate).rounded(.up)))
        if upsampling > 1, steps == 1 {
            filter(m3, at: t3)
        } else if upsampling == 1, steps > 1 {
            (m0, m1, m2) = (m3, m3, m3)
            (t1, t2) = (t3, t3)
        }
        upsampling = steps
        lowPass = .lowPass(cutoff: lowPassHz, fs: Double(steps) / meanDt)
        lowPass.settle(at: y)
    }

    /// One interpolated filter step of the current span (Catmull-Rom cubic
    /// through m0…m3); steps at or before `outT` are already filtered.
    @inline(__always)
    private mutating func stepSpan() {
        spanDone += 1
        let u = Double(spanDone) / Double(spanSteps)
        let t = t1 + u * (t2 - t1)
        guard t > outT else { return }
        let a = m0, b = m1, c = m2, d = m3
        let v = b + 0.5 * u * ((c - a) + u * ((2 * a - 5 * b + 4 * c - d) + u * (3 * (b - c) + d - a)))
        filter(v, at: t)
    }

    /// One low-pass step: the output at `t` becomes the latest.
    @inline(__always)
    private mutating func filter(_ v: Double, at t: Double) {
        previousY = y
        y = lowPass.step(v)
        outDt = t - outT
        outT = t
    }

    @inline(__always)
    private mutating func finishSpan() {
        while spanDone < spanSteps { stepSpan() }
    }

    /// The next tick at or before the latest filtered instant, if any: its
    /// instant and the band-passed |a| there (linear interpolation between
    /// filter outputs, then the high-pass).
    @inline(__always)
    mutating func nextTick() -> (t: Double, value: Double)? {
        guard designedDt > 0 else { return nil }
        let t = nextTickT
        if t > outT {
            while spanDone < spanSteps, t > outT { stepSpan() }
            guard t <= outT else { return nil }
        }
        nextTickT += Self.tickInterval
        let back = outDt > 0 ? (outT - t) / outDt : 0
        let value = back >= 1 ? previousY : y - back * (y - previousY)
        return (t, highPass.step(value))
    }
}
