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
///    to it are emitted at once (late, at most `maxDelay`), except the
///    push-off that opens a walk. A bout that starts soon after the last one
///    ended, with motion in between (a turn), counts the gap by the rhythm.
/// 5. Within a bout a beat is tracked (a small phase-locked loop with its own
///    step period, immune to the tracker's octave errors): each candidate is
///    placed on the nearest beat and counts once per beat, beats without a
///    peak are filled, softer steps count for a few beats (the last steps of
///    a walk, a turn), and the bout ends when the rhythm is lost: no step
///    for `boutGap` periods, or neither the signal's periodicity nor the
///    candidates' timing still look like walking.
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
        /// A bout ends when no candidate arrives within this many step
        /// periods. Up to that, steps too soft to make their own peak are
        /// filled in (one or two), when the candidate after the gap falls
        /// within `fillTolerance` step periods of its beat.
        public var boutGap = 2.6
        public var fillTolerance = 0.3
        /// Longest delay between a step and its emission, s.
        public var maxDelay = 2.5
        /// A weaker step keeps a bout going when it keeps the rhythm: the
        /// last steps before a stop and the steps of a turn land softly.
        /// Its swing must reach this share of the bout's typical swing and
        /// this absolute floor, g; at most `maxWeakRun` of them in a row.
        public var weakRelativeSwing = 0.1
        public var weakMinSwing = 0.04
        public var maxWeakRun = 3
        /// A bout that starts within this many step periods of the previous
        /// one's last step continues it (a turn, a stumble): the steps of the
        /// gap are counted by the rhythm, when at least half of them left a
        /// candidate of `weakMinSwing` (standing still leaves none).
        public var bridgePeriods = 6.0
        /// Within a bout a candidate earlier than this share of a step
        /// period after the beat belongs to the step already counted.
        public var beatOpen = 0.6
        /// How far the beat follows each step's own timing (1: fully).
        public var beatGain = 0.5
        /// A bout lasts while the signal stays periodic: it ends when it has
        /// not been periodic enough to start one (`startScore`) for
        /// `keepTime` seconds (steady walking scores 0.8-0.95, a turn dips
        /// for a step or two, talking and fidgeting hover at 0.2-0.6).
        public var keepTime = 2.0
        /// ... unless the steps themselves keep their beat: the running
        /// mean of how far candidates fall from whole beats (0 exact, 0.25
        /// random) stays below this.
        public var maxBeatError = 0.12
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

    /// The tracker's step period (kept from the last periodic moment while
    /// the rhythm falters).
    private var period = 0.0
    private var periodic = false
    private var ticksToAnalysis = 0
    static let ticksPerAnalysis = 8

    private var walking = false
    private var lastEmitted = -Double.infinity
    private var boutSwing = 0.0
    private var weakRun = 0
    /// Last tick at which the signal was periodic enough to keep a bout.
    private var lastRhythmic = -Double.infinity
    /// Smoothed instant of the last step of the bout (the rhythm's phase).
    private var beat = 0.0
    /// Running mean of |phase - whole beats| of the bout's candidates.
    private var beatError = 0.0
    /// Step period of the bout: the tracker's while the signal is periodic,
    /// otherwise following the bout's own step intervals.
    private var boutPeriod = 0.0
    /// Candidates of at least `weakMinSwing` since the last step: the gap
    /// before a new bout was spent moving, not standing.
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
                periodic = a.score >= parameters.startScore
                    && a.stepPeriod >= parameters.minStepPeriod && a.stepPeriod <= parameters.maxStepPeriod
                if periodic {
                    period = a.stepPeriod
                    lastRhythmic = tick.t
                }
            }
            let stepPeriod = walking ? boutPeriod : periodic ? period : 0
            let gap = max(parameters.minInterval, parameters.mergeShare * stepPeriod)
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
        if c.swing >= parameters.weakMinSwing { movesSinceStep += 1 }
        if walking {
            if continues(with: c, onStep) { return }
            walking = false
            boutEnd = lastEmitted
            boutEndPeriod = boutPeriod
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
        // The tracker's period is taken when it agrees with the bout's; a
        // jump to about half or double is an octave error of the tracker
        // (strides and steps look alike), and the bout keeps its own.
        let trusted = periodic && abs(period - boutPeriod) <= parameters.periodAgreement * boutPeriod
        if trusted { boutPeriod = period }
        // Where the candidate falls in the rhythm, counted in steps from the
        // last beat: near 1 it is the next step, near 2 the one after (a soft
        // step in between made no peak of its own), below `beatOpen` it is a
        // second bump of the step already counted.
        let phase = (c.t - beat) / boutPeriod
        let beats = max(1, phase.rounded())
        beatError += 0.3 * (min(0.5, abs(phase - beats)) - beatError)
        guard phase <= parameters.boutGap,
              c.t - lastRhythmic <= parameters.keepTime || beatError <= parameters.maxBeatError else { return false }
        let strong = c.swing >= max(parameters.minSwing, parameters.relativeSwing * boutSwing)
        let weakStep = beats == 1 && weakRun < parameters.maxWeakRun
            && c.swing >= max(parameters.weakMinSwing, parameters.weakRelativeSwing * boutSwing)
        // Otherwise not a step (a second bump, fidgeting, handling the
        // device); the bout goes on until its rhythm is lost.
        // A candidate two or three beats on fills the steps before it only
        // when it is on its beat; halfway between beats it is no step at all.
        guard phase >= parameters.beatOpen, strong || weakStep,
              beats == 1 || abs(phase - beats) <= parameters.fillTolerance else { return true }
        let missed = Int(beats) - 1
        if missed > 0 {
            for i in 1...missed {
                onStep(lastEmitted + (c.t - lastEmitted) * Double(i) / Double(missed + 1))
            }
        }
        onStep(c.t)
        movesSinceStep = 0
        if !trusted {
            let interval = (c.t - lastEmitted) / beats
            boutPeriod += parameters.beatGain * 0.5 * (interval - boutPeriod)
            boutPeriod = min(max(boutPeriod, parameters.minStepPeriod), parameters.maxStepPeriod)
        }
        lastEmitted = c.t
        // The beat follows the steps, smoothed: one step's timing jitter
        // does not shift where the next is expected.
        let expected = beat + beats * boutPeriod
        beat = expected + parameters.beatGain * (c.t - expected)
        if strong {
            weakRun = 0
            boutSwing += 0.2 * (c.swing - boutSwing)
        } else {
            weakRun += 1
        }
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
        if !boutEnd.isFinite || pending[first] - boutEnd > parameters.bridgePeriods * p,
           pending[first + 1] - pending[first] < parameters.openingShare * p {
            first += 1
        }
        bridge(to: first, period: p, onStep)
        var swing = 0.0
        for i in first...newest {
            onStep(pending[i])
            swing += pendingSwings[i]
        }
        walking = true
        movesSinceStep = 0
        weakRun = 0
        beatError = 0
        beat = now
        boutPeriod = p
        boutSwing = swing / Double(newest - first + 1)
        lastEmitted = now
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
        for i in first..<pending.count where pendingSwings[i] >= parameters.weakMinSwing {
            moving -= 1
        }
        guard 2 * moving >= missing else { return }
        for i in 1...missing {
            onStep(boutEnd + gap * Double(i) / Double(missing + 1))
        }
    }
}
