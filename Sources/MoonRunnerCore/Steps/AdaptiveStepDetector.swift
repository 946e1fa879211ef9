/// The default streaming step detector (docs/algorithms.md, "Step detector").
///
/// |a| is limited to the gait band at 20 Hz ticks (`GaitBandSignal`); its
/// peaks are step candidates (`StepCandidatePicker`), and a running
/// autocorrelation (`PeriodicityTracker`) says how periodic it is and at
/// which step period. Steps are counted only in a bout: it starts when the
/// signal is periodic and `boutSteps` candidates keep that rhythm with a
/// step's swing (standing, talking and desk work rarely do); in it a candidate
/// about one period after the last step is the next; it ends after `boutGap`
/// periods without one, and a bout within `bridgePeriods` continues it.
/// `minSwing` and `startScore` are chosen by cross-validation by person
/// (`eval_steps.py --cv`); every other value has its physical reason. O(1).
public struct AdaptiveStepDetector: StepDetector {
    /// The detector's values, each with its reason. The defaults are the
    /// product's; `moonrunner analyze --step-parameters` and the evaluation
    /// may vary them.
    public struct Parameters: Sendable, Equatable {
        /// Gait band of |a|, Hz: steps at 70–220 per minute are 1.2–3.7 Hz,
        /// strides (two steps) down to 0.6 Hz; gravity and posture drift sit
        /// below, impacts' ringing above.
        public var highPassHz = 0.6
        public var lowPassHz = 3.5
        /// Memory of the periodicity tracker, s: two or three steps, so that
        /// a walker restarting after a pause or a turn is recognised within
        /// about two seconds.
        public var periodicityMemory = 1.5
        /// Step periods of walking and running, s: 80–200 steps/min with a
        /// margin (70–222).
        public var minStepPeriod = 0.27
        public var maxStepPeriod = 0.85
        /// Periodicity (normalised autocorrelation) needed to start a bout.
        /// Tuned (cross-validated by person).
        public var startScore = 0.6
        /// Smallest swing of |a| that is a step, g (gentlest walking at the
        /// lower back ~0.2 g, desk work ~0.01 g). Tuned (cross-validated by
        /// person).
        public var minSwing = 0.1
        /// Candidates in rhythm needed to start a bout: fewer and a gesture
        /// repeated three times walks; more and short walks lose their start.
        public var boutSteps = 4.0
        /// Rhythm tolerance when starting a bout: each interval within this
        /// factor of the step period either way (steps vary by well under it
        /// from one to the next; fidgeting does not keep to it).
        public var rhythmRatio = 1.5
        /// Candidates closer than this share of the step period are one
        /// step: a heel strike and the push-off that follows it.
        public var sameStep = 0.6
        /// Closest candidates ever (240 steps/min), s.
        public var minInterval = 0.25
        /// A bout ends when no step is counted for this many step periods.
        public var boutGap = 2.6
        /// Longest delay between a step and its emission, s (a bout's start
        /// is confirmed by its fourth step).
        public var maxDelay = 2.5
        /// Below this step period (150 steps/min) the wearer runs, and a
        /// running body lands hard: each starting step must swing this much, g.
        public var runningPeriod = 0.4
        public var runningSwing = 0.4
        /// A bout that starts within this many step periods (5–8 s) of the
        /// previous one's last step continues it, when the gap was spent
        /// moving: candidates of at least `motionSwing` (g) for at least
        /// half of the gap's steps.
        public var bridgePeriods = 10.0
        public var motionSwing = 0.04
        /// Within a bout the tracker's step period is followed only while it
        /// stays within this share of the bout's own.
        public var periodAgreement = 0.3
        /// A walk starts with a push-off, seen ~0.4 s before the first heel
        /// strike: an opening candidate followed sooner than this share of
        /// the step period is that push-off, not a step.
        public var openingShare = 0.9

        public init() {}
    }

    public let parameters: Parameters

    private var signal: GaitBandSignal
    private var tracker: PeriodicityTracker
    private var picker = StepCandidatePicker()

    /// The tracker's step period (kept from the last periodic moment).
    private var period = 0.0
    private var periodic = false
    private var ticksToAnalysis = 0
    static let ticksPerAnalysis = 8

    private var walking = false
    /// Last counted step and the bout's step period.
    private var lastStep = -Double.infinity
    private var boutPeriod = 0.0
    /// Candidates of at least `motionSwing` since the last counted step:
    /// the gap before a new bout was spent moving, not standing.
    private var movesSinceStep = 0
    /// Last step and step period of the previous bout, for bridging.
    private var boutEnd = -Double.infinity
    private var boutEndPeriod = 0.0
    /// Candidates not (yet) counted, with their swings.
    private var pending = StepRing()
    private var pendingSwings = StepRing()

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        signal = GaitBandSignal(highPassHz: parameters.highPassHz, lowPassHz: parameters.lowPassHz)
        tracker = PeriodicityTracker(timeConstant: parameters.periodicityMemory, longestStep: parameters.maxStepPeriod)
    }

    public mutating func reset() { self = AdaptiveStepDetector(parameters: parameters) }

    public mutating func process(_ sample: IMUSample, onStep: (Double) -> Void) {
        // |a| from the three axes read one by one: a paired (vector) load of
        // two axes stalls on the caller's separate stores of them.
        let x = sample.ax, y = sample.ay, z = sample.az
        let m = (x * x + (y * y + z * z)).squareRoot()
        switch signal.feed(t: sample.t, magnitude: m) {
        case .ignored:
            return
        case .restarted:
            restartAfterGap()
        case .ok:
            break
        }
        while let tick = signal.nextTick() {
            tracker.push(Float(tick.value))
            ticksToAnalysis -= 1
            if ticksToAnalysis <= 0 {
                // The tracker's memory is 1.5 s: a fresh look every 0.4 s is
                // as good as every tick (measured on the labelled traces), for
                // an eighth of the work.
                ticksToAnalysis = Self.ticksPerAnalysis
                let a = tracker.analyse()
                periodic = Double(a.score) >= parameters.startScore
                    && a.stepPeriod >= parameters.minStepPeriod && a.stepPeriod <= parameters.maxStepPeriod
                if periodic { period = a.stepPeriod }
            }
            let stepPeriod = walking ? boutPeriod : periodic ? period : 0
            let gap = max(parameters.minInterval, parameters.sameStep * stepPeriod)
            if let c = picker.push(t: tick.t, z: tick.value, minGap: gap) {
                handle(c, onStep)
            }
        }
    }

    /// A gap in the stream: no rhythm survives it (kept out of line, it is rare).
    @inline(never)
    private mutating func restartAfterGap() {
        let kept = signal
        self = AdaptiveStepDetector(parameters: parameters)
        signal = kept
    }

    private mutating func handle(_ c: StepCandidate, _ onStep: (Double) -> Void) {
        if c.swing >= parameters.motionSwing { movesSinceStep += 1 }
        if walking {
            if continues(with: c, onStep) { return }
            walking = false
            boutEnd = lastStep
            boutEndPeriod = boutPeriod
            pending.removeAll()
            pendingSwings.removeAll()
        }
        pending.append(c.t)
        pendingSwings.append(c.swing)
        startBoutIfRhythmic(onStep)
    }

    /// Within a bout: counts `c` when it is the next step of the rhythm;
    /// false when the bout is over.
    private mutating func continues(with c: StepCandidate, _ onStep: (Double) -> Void) -> Bool {
        let trusted = periodic && abs(period - boutPeriod) <= parameters.periodAgreement * boutPeriod
        if trusted { boutPeriod = period }
        // Where the candidate falls, in step periods after the last step.
        let phase = (c.t - lastStep) / boutPeriod
        guard phase <= parameters.boutGap else { return false }
        guard phase >= parameters.sameStep, phase < 1.5, c.swing >= parameters.minSwing else { return true }
        onStep(c.t)
        movesSinceStep = 0
        if !trusted {
            boutPeriod += 0.5 * (c.t - lastStep - boutPeriod)
            boutPeriod = min(max(boutPeriod, parameters.minStepPeriod), parameters.maxStepPeriod)
        }
        lastStep = c.t
        return true
    }

    /// Outside a bout: starts one when the newest candidates follow a
    /// periodic rhythm, and counts them.
    private mutating func startBoutIfRhythmic(_ onStep: (Double) -> Void) {
        let newest = pending.count - 1
        guard periodic, pendingSwings[newest] >= parameters.minSwing else { return }
        let p = period
        let now = pending[newest]
        // Walk back from the newest candidate while the rhythm holds.
        var first = newest
        while first > 0 {
            let d = pending[first] - pending[first - 1]
            guard d * parameters.rhythmRatio >= p, d <= parameters.rhythmRatio * p,
                  pendingSwings[first - 1] >= parameters.minSwing,
                  now - pending[first - 1] <= parameters.maxDelay else { break }
            first -= 1
        }
        guard Double(newest - first + 1) >= parameters.boutSteps else { return }
        if p < parameters.runningPeriod {
            for i in first...newest where pendingSwings[i] < parameters.runningSwing { return }
        }
        if !boutEnd.isFinite || pending[first] - boutEnd > parameters.bridgePeriods * p,
           pending[first + 1] - pending[first] < parameters.openingShare * p {
            first += 1
        }
        bridge(to: first, period: p, onStep)
        for i in first...newest { onStep(pending[i]) }
        walking = true
        movesSinceStep = 0
        boutPeriod = p
        lastStep = now
        pending.removeAll()
        pendingSwings.removeAll()
    }

    /// Counts the steps between the previous bout and one starting at
    /// `pending[first]`, when the gap is short and was not spent standing.
    private mutating func bridge(to first: Int, period p: Double, _ onStep: (Double) -> Void) {
        guard boutEnd.isFinite else { return }
        let start = pending[first]
        let step = 0.5 * (p + boutEndPeriod)
        let gap = start - boutEnd
        guard gap <= parameters.bridgePeriods * step else { return }
        let missing = Int((gap / step).rounded()) - 1
        guard missing > 0 else { return }
        var moving = movesSinceStep
        for i in first..<pending.count where pendingSwings[i] >= parameters.motionSwing {
            moving -= 1
        }
        guard 2 * moving >= missing else { return }
        for i in 1...missing {
            onStep(boutEnd + gap * Double(i) / Double(missing + 1))
        }
    }
}
