/// The default streaming step detector.
///
/// Pipeline (all O(1) state, no allocation, time only from the samples):
/// 1. |a| is band-passed to the gait band and resampled to 20 Hz ticks
///    (`GaitBandSignal`), so any sensor rate and any orientation look alike.
/// 2. A running autocorrelation (`PeriodicityTracker`) says whether the last
///    few seconds repeat like steps do, and with which step period.
/// 3. Peaks of the signal are step candidates (`StepCandidatePicker`); two
///    peaks closer than ~0.6 step period are one step.
/// 4. Candidates only count in a *bout*: it starts when the signal is
///    periodic at a walking/running step period and the last few candidates
///    follow that rhythm with a real swing; then the candidates that led up
///    to it are emitted at once (late, at most `maxDelay`). Within a bout each
///    candidate counts as it comes, a soft step that made no peak is filled
///    in, and the bout ends when the rhythm or the swing is lost.
/// Standing, talking, gesturing and desk work rarely repeat at a step
/// period with a step's swing for several steps, so they stay at zero.
public struct AdaptiveStepDetector: StepDetector {
    /// Tuning, each value with its physical reason. The defaults are the
    /// product's; tests and evaluations may vary them.
    public struct Parameters: Sendable, Equatable {
        /// Gait band of |a|, Hz: steps at 80–200 per minute are 1.3–3.3 Hz,
        /// strides (two steps) down to 0.67 Hz; gravity and posture drift
        /// sit below, impacts' ringing above.
        public var highPassHz = 0.6
        public var lowPassHz = 3.5
        /// Memory of the periodicity tracker, s: two or three steps, so that
        /// a walker restarting after a pause or a turn is recognised within
        /// about two seconds (a longer memory mixes the old rhythm into the
        /// new one; the tracker also forgets what came before a pause).
        public var periodicityMemory = 1.5
        /// Step periods that are walking or running, s: 80–200 steps/min
        /// with a margin (70–222).
        public var minStepPeriod = 0.27
        public var maxStepPeriod = 0.85
        /// Periodicity (normalised autocorrelation) needed to start a bout.
        public var startScore: Float = 0.6
        /// Candidates in rhythm needed to start a bout.
        public var boutSteps = 4
        /// Smallest swing of |a| that is a step, g: the gentlest walking
        /// measured at the lower back swings ~0.2 g; desk work ~0.01 g.
        public var minSwing = 0.1
        /// Below this step period (150 steps/min) the wearer runs, and a
        /// running body lands hard: each starting step must swing this much, g.
        public var runningPeriod = 0.4
        public var runningSwing = 0.4
        /// Within a bout a candidate must swing this share of the bout's
        /// typical swing: what trails after a stop is much weaker.
        public var relativeSwing = 0.25
        /// Candidates closer than this share of the step period are one step.
        public var mergeShare = 0.6
        /// Closest candidates ever (240 steps/min), s.
        public var minInterval = 0.25
        /// Rhythm tolerance when starting a bout: intervals within
        /// [low, high] × step period. Steps vary by well under ±30 % from one
        /// to the next; fidgeting that the (short) periodicity memory lets
        /// through does not keep to that.
        public var rhythmLow = 0.7
        public var rhythmHigh = 1.35
        /// A bout ends when no candidate arrives within this many step periods.
        public var boutGap = 2.6
        /// Steps filled into a gap of two or three step periods (a step too
        /// soft to make its own peak).
        public var maxFill = 2
        /// Longest delay between a step and its emission, s.
        public var maxDelay = 2.5

        public init() {}
    }

    public let parameters: Parameters

    private var signal: GaitBandSignal
    private var tracker: PeriodicityTracker
    private var picker = StepCandidatePicker()

    /// Latest periodicity score and the step period of the current rhythm
    /// (kept from the last periodic moment while the rhythm falters).
    private var score: Float = 0
    private var period = 0.0
    private var periodic = false
    private var ticksToAnalysis = 0
    static let ticksPerAnalysis = 4

    private var walking = false
    private var lastEmitted = -Double.infinity
    private var boutSwing = 0.0
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
                // The tracker's memory is seconds long: a fresh look every
                // few ticks is as good as every tick, for a quarter of the work.
                ticksToAnalysis = Self.ticksPerAnalysis
                let a = tracker.analyse()
                score = a.score
                periodic = a.score >= parameters.startScore
                    && a.stepPeriod >= parameters.minStepPeriod && a.stepPeriod <= parameters.maxStepPeriod
                if periodic { period = a.stepPeriod }
            }
            let gap = periodic || walking
                ? max(parameters.minInterval, parameters.mergeShare * period) : parameters.minInterval
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
        if walking {
            if continues(with: c, onStep) { return }
            walking = false
            pending.removeAll()
            pendingSwings.removeAll()
        }
        pending.append(c.t)
        pendingSwings.append(c.swing)
        startBoutIfRhythmic(onStep)
    }

    /// Within a bout: counts `c` (and any soft steps before it) when it
    /// keeps the rhythm and the swing; false when the bout is over.
    private mutating func continues(with c: StepCandidate, _ onStep: (Double) -> Void) -> Bool {
        let dt = c.t - lastEmitted
        guard c.swing >= max(parameters.minSwing, parameters.relativeSwing * boutSwing),
              dt <= parameters.boutGap * period else { return false }
        let missed = min(parameters.maxFill, Int((dt / period).rounded()) - 1)
        if missed > 0 {
            for i in 1...missed {
                onStep(lastEmitted + dt * Double(i) / Double(missed + 1))
            }
        }
        onStep(c.t)
        lastEmitted = c.t
        boutSwing += 0.2 * (c.swing - boutSwing)
        return true
    }

    /// Outside a bout: starts one when the newest candidates follow a
    /// periodic rhythm, and emits them.
    private mutating func startBoutIfRhythmic(_ onStep: (Double) -> Void) {
        let newest = pending.count - 1
        guard periodic, pendingSwings[newest] >= parameters.minSwing else { return }
        let p = period
        let now = pending[newest]
        // Walk back from the newest candidate while the rhythm holds.
        var first = newest
        while first > 0 {
            let d = pending[first] - pending[first - 1]
            guard d >= parameters.rhythmLow * p, d <= parameters.rhythmHigh * p,
                  pendingSwings[first - 1] >= parameters.minSwing,
                  now - pending[first - 1] <= parameters.maxDelay else { break }
            first -= 1
        }
        let run = newest - first + 1
        guard run >= parameters.boutSteps else { return }
        if p < parameters.runningPeriod {
            for i in first...newest where pendingSwings[i] < parameters.runningSwing { return }
        }
        var swing = 0.0
        for i in first...newest {
            onStep(pending[i])
            swing += pendingSwings[i]
        }
        walking = true
        boutSwing = swing / Double(run)
        lastEmitted = now
        pending.removeAll()
        pendingSwings.removeAll()
    }
}
