/// The default streaming step detector (prototype v1).
public struct AdaptiveStepDetector: StepDetector {
    public struct Parameters: Sendable, Equatable {
        public var highPassHz = 0.6
        public var lowPassHz = 3.5
        public var minInterval = 0.25
        public var maxStepInterval = 1.0
        public var boutSteps = 4
        public var regularity = 1.5
        public var relThreshold = 0.4
        public var relValley = 0.0
        public var floor = 0.03
        public var rmsTau = 2.0
        public var continueFactor = 2.6
        public var maxContinue = 2.0
        public var fillMissed = true
        public var relMinGap = 0.55
        public init() {}
    }

    public var parameters: Parameters

    private var highPass = Biquad()
    private var lowPass = Biquad()
    private var designedDt = 0.0
    private var meanDt = 0.0
    private var lastT = Double.nan

    private var y1 = 0.0, y2 = 0.0
    private var meanSquare = 0.0
    private var valley = 0.0
    private var armed = true

    private var tentT = Double.nan
    private var tentV = 0.0
    private var tentValley = 0.0
    private var lastCommitted = -Double.infinity

    private var walking = false
    private var meanInterval = 0.0
    private var lastStep = -Double.infinity
    private var pending = StepRing()

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
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
            }
        }
        let y = lowPass.step(highPass.step(m))
        let k = meanDt / parameters.rmsTau
        meanSquare += k * (y * y - meanSquare)
        defer { y2 = y1; y1 = y }

        // Commit a tentative candidate once nothing larger can replace it.
        if tentT.isFinite && t - tentT >= minGap {
            commit(onStep)
        }
        let rms = meanSquare.squareRoot()
        if y < valley { valley = y }
        if valley < parameters.relValley * rms { armed = true }
        guard y1 > y2, y1 >= y else { return }
        let threshold = max(parameters.floor, parameters.relThreshold * rms)
        guard y1 >= threshold else { return }
        // Parabolic refinement of the peak instant.
        let den = y2 - 2 * y1 + y
        let off = den < 0 ? 0.5 * (y2 - y) / den : 0
        let tp = t - meanDt + off * meanDt
        if tentT.isFinite {
            if tp - tentT < minGap {
                if y1 > tentV { tentT = tp; tentV = y1 }
                return
            }
            commit(onStep)
        }
        guard armed else { return }
        tentT = tp
        tentV = y1
        tentValley = valley
        armed = false
        valley = y1
    }

    private var minGap: Double {
        walking ? max(parameters.minInterval, parameters.relMinGap * meanInterval) : parameters.minInterval
    }

    private mutating func commit(_ onStep: (Double) -> Void) {
        let tc = tentT
        tentT = .nan
        #if STEPDEBUG
        debugCandidate?(tc, tentV, tentValley, meanSquare.squareRoot())
        #endif
        let dt = tc - lastCommitted
        lastCommitted = tc
        if walking {
            let limit = min(parameters.maxContinue, parameters.continueFactor * meanInterval)
            if dt <= limit {
                if parameters.fillMissed && dt > 1.6 * meanInterval && dt < 2.4 * meanInterval {
                    onStep(tc - 0.5 * dt)
                } else {
                    meanInterval += 0.2 * (min(dt, parameters.maxStepInterval) - meanInterval)
                }
                onStep(tc)
                lastStep = tc
                return
            }
            walking = false
            pending.removeAll()
        }
        if dt > parameters.maxStepInterval {
            pending.removeAll()
        }
        pending.append(tc)
        let n = parameters.boutSteps
        guard pending.count >= n else { return }
        // Regularity of the last n-1 intervals.
        var lo = Double.infinity, hi = 0.0, sum = 0.0
        for i in (pending.count - n + 1)..<pending.count {
            let d = pending[i] - pending[i - 1]
            lo = min(lo, d)
            hi = max(hi, d)
            sum += d
        }
        guard hi <= parameters.regularity * lo else { return }
        walking = true
        meanInterval = sum / Double(n - 1)
        for i in (pending.count - n)..<pending.count { onStep(pending[i]) }
        lastStep = tc
        pending.removeAll()
    }
}

/// The last eight step instants, oldest first; a fixed-size tuple so that
/// holding them never allocates.
struct StepRing: Sendable {
    private var items: (Double, Double, Double, Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var start = 0
    private(set) var count = 0
    static let capacity = 8

    mutating func append(_ t: Double) {
        if count == Self.capacity {
            start = (start + 1) & 7
            count -= 1
        }
        let slot = (start + count) & 7
        withUnsafeMutableBytes(of: &items) { raw in
            raw.storeBytes(of: t, toByteOffset: slot * MemoryLayout<Double>.stride, as: Double.self)
        }
        count += 1
    }

    mutating func removeAll() { count = 0; start = 0 }

    subscript(i: Int) -> Double {
        let slot = (start + i) & 7
        return withUnsafeBytes(of: items) { raw in
            raw.load(fromByteOffset: slot * MemoryLayout<Double>.stride, as: Double.self)
        }
    }
}

#if STEPDEBUG
nonisolated(unsafe) var debugCandidate: ((Double, Double, Double, Double) -> Void)?
#endif
