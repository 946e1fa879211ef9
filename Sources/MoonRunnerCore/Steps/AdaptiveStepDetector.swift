/// The default streaming step detector (prototype v2).
public struct AdaptiveStepDetector: StepDetector {
    public struct Parameters: Sendable, Equatable {
        public var highPassHz = 0.6
        public var lowPassHz = 3.5
        public var acTau = 2.5
        public var minInterval = 0.25
        public var minPeriod: Float = 0.27
        public var maxPeriod: Float = 0.85
        public var onScore: Float = 0.5
        public var offScore: Float = 0.0
        public var boutSteps = 4
        public var minSwing = 0.1
        public var relSwing = 0.25
        public var relGap = 0.6
        public var lowTol = 0.6
        public var highTol = 1.45
        public var maxDelay = 2.5
        public var gapFactor = 2.6
        public var maxFill = 2
        public var swingTau = 4.0
        public var fastPeriod = 0.4
        public var fastSwing = 0.4
        public var irregTau = 4.0
        public var maxIrreg = 10.0
        public init() {}
    }

    public var parameters: Parameters

    // Sample clock and filters.
    private var highPass = Biquad()
    private var lowPass = Biquad()
    private var designedDt = 0.0
    private var meanDt = 0.0
    private var lastT = Double.nan

    // Peak picking.
    private var y1 = 0.0, y2 = 0.0
    private var valley = 0.0
    private var tentT = Double.nan
    private var tentV = 0.0
    private var tentSwing = 0.0

    // Periodicity.
    private var tracker: PeriodicityTracker
    private var nextTick = Double.nan
    private var score: Float = 0
    private var period: Float = 0

    // Bouts.
    private var walking = false
    private var lastEmitted = -Double.infinity
    private var boutSwing = 0.0
    private var lastInterval = 0.0
    private var irregularity = 0.0
    private var pending = StepRing()
    private var swings = StepRing()

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        tracker = PeriodicityTracker(timeConstant: parameters.acTau)
    }

    public mutating func reset() { self = AdaptiveStepDetector(parameters: parameters) }

    public mutating func process(_ sample: IMUSample, onStep: (Double) -> Void) {
        let t = sample.t
        let m = sample.accelMagnitude
        guard m.isFinite, t.isFinite else { return }
        if lastT.isFinite {
            let dt = t - lastT
            if dt <= 0 { return }
            if dt > 0.5 {
                reset()
                lastT = t
                return
            }
            meanDt = meanDt == 0 ? dt : meanDt + 0.02 * (dt - meanDt)
        }
        lastT = t
        guard meanDt > 0 else { return }
        if designedDt == 0 || abs(meanDt - designedDt) > 0.05 * designedDt {
            let fs = 1 / meanDt
            let first = designedDt == 0
            designedDt = meanDt
            highPass = .highPass(cutoff: parameters.highPassHz, fs: fs)
            lowPass = .lowPass(cutoff: parameters.lowPassHz, fs: fs)
            if first {
                highPass.settle(at: m)
                lowPass.settle(at: 0)
                nextTick = t
            }
        }
        let y = lowPass.step(highPass.step(m))

        // Resample to the tracker's ticks by linear interpolation.
        let tickDt = 1 / Double(PeriodicityTracker.tickRate)
        while nextTick <= t {
            let w = (t - nextTick) / meanDt
            tracker.push(Float(y - w * (y - y1)))
            nextTick += tickDt
            let a = tracker.analyse()
            score = a.score
            period = a.stepPeriod
        }
        defer { y2 = y1; y1 = y }

        if tentT.isFinite && t - tentT >= minGap {
            commit(onStep)
        }
        if y < valley { valley = y }
        guard y1 > y2, y1 >= y, y1 > 0 else { return }
        let den = y2 - 2 * y1 + y
        let off = den < 0 ? 0.5 * (y2 - y) / den : 0
        let tp = t - meanDt + off * meanDt
        let swing = y1 - valley
        if tentT.isFinite {
            if tp - tentT < minGap {
                if y1 > tentV {
                    tentT = tp
                    tentV = y1
                    tentSwing = max(tentSwing, swing)
                }
                return
            }
            commit(onStep)
        }
        tentT = tp
        tentV = y1
        tentSwing = swing
        valley = y1
    }

    private var periodic: Bool {
        score >= parameters.onScore && period >= parameters.minPeriod && period <= parameters.maxPeriod
    }

    private var minGap: Double {
        periodic || walking ? max(parameters.minInterval, parameters.relGap * Double(period)) : parameters.minInterval
    }

    private mutating func commit(_ onStep: (Double) -> Void) {
        let tc = tentT
        let swing = tentSwing
        tentT = .nan
        #if STEPDEBUG
        debugCandidate?(tc, swing, Double(score), Double(period))
        #endif
        let p = Double(period)
        if walking {
            let dt = tc - lastEmitted
            let ok = swing >= max(parameters.minSwing, parameters.relSwing * boutSwing)
                && dt <= parameters.gapFactor * p && score >= parameters.offScore
            if ok {
                let n = min(parameters.maxFill, Int((dt / p).rounded()) - 1)
                let stepDt = dt / Double(max(n, 0) + 1)
                if lastInterval > 0 {
                    let change = abs(stepDt - lastInterval) / p
                    irregularity += (change - irregularity) / parameters.irregTau
                }
                lastInterval = stepDt
                if irregularity > parameters.maxIrreg {
                    walking = false
                    pending.removeAll()
                    swings.removeAll()
                    pending.append(tc)
                    swings.append(swing)
                    return
                }
                if n > 0 {
                    for i in 1...n { onStep(lastEmitted + dt * Double(i) / Double(n + 1)) }
                }
                onStep(tc)
                lastEmitted = tc
                boutSwing += 0.2 * (swing - boutSwing)
                return
            }
            walking = false
            pending.removeAll()
            swings.removeAll()
        }
        pending.append(tc)
        swings.append(swing)
        guard periodic else { return }
        // Walk back from the newest candidate while the rhythm holds.
        var k = pending.count - 1
        var sw = swing
        while k > 0 {
            let d = pending[k] - pending[k - 1]
            guard d >= parameters.lowTol * p, d <= parameters.highTol * p,
                  swings[k - 1] >= parameters.minSwing, tc - pending[k - 1] <= parameters.maxDelay else { break }
            sw = max(sw, swings[k - 1])
            k -= 1
        }
        let run = pending.count - k
        guard run >= parameters.boutSteps, swing >= parameters.minSwing else { return }
        if p < parameters.fastPeriod {
            // Running cadence: a body that runs shakes hard.
            for i in k..<pending.count where swings[i] < parameters.fastSwing { return }
        }
        walking = true
        var s = 0.0
        for i in k..<pending.count {
            onStep(pending[i])
            s += swings[i]
        }
        boutSwing = s / Double(run)
        lastInterval = 0
        irregularity = 0
        lastEmitted = tc
        pending.removeAll()
        swings.removeAll()
    }
}

#if STEPDEBUG
nonisolated(unsafe) var debugCandidate: ((Double, Double, Double, Double) -> Void)?
#endif
