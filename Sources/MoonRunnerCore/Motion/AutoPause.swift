/// Settings of the automatic pause.
public struct AutoPauseConfig: Sendable, Equatable, Codable {
    public var enabled = true
    /// Seconds without a step and with the IMU still before pausing: the
    /// quick path, for a wearer who really stopped (Strava's accelerometer
    /// pause reacts in about a second; two leave room for a slow step).
    public var stillDwell = 1.5
    /// Seconds without any evidence of motion before pausing when the IMU
    /// cannot tell (no IMU, or it still moves without steps: gestures,
    /// fidgeting): the seed's "about 8 s".
    public var pauseDwell = 8.0
    /// Steps within `resumeWindow` seconds that resume a paused workout.
    public var resumeSteps = 2
    public var resumeWindow = 2.0
    /// GPS Doppler speed that counts as moving although the IMU is still
    /// (a hand-held device, a bike), m/s; it must last `fastDwell` seconds.
    public var vetoSpeed = 2.5
    public var fastDwell = 2.0
    /// Doppler speed above which the IMU's stillness hint is not trusted for
    /// the GPS filter, m/s.
    public var moveSpeed = 1.2
    /// Doppler speed of slow walking: while the receiver measures this much, a
    /// still IMU does not pause at once (at a real stop Doppler falls to the
    /// noise, ~0.2 m/s), m/s.
    public var walkingDoppler = 0.8
    /// Rotation rate that counts as motion, rad/s (seed: gyro |y| or |z| > 2 rad/s).
    public var gyroThreshold = 2.0
    /// A still tail this long when the session is stopped is a pause (longer
    /// than any stride, so that a stop pressed mid-stride stays moving), s.
    public var endDwell = 1.5
    /// On wheels: the receiver's speed alone decides (`WheelPause`); nil on foot.
    public var wheels: WheelPause.Rule?
    /// Steps count only where a trusted Doppler speed does not say the
    /// wearer stands (`StepConfirmation`): every activity on foot sets it.
    public var gpsConfirmsSteps = false

    public init() {}
}

/// Decides when the wearer stopped and started again, from all the evidence.
///
/// * Motion: steps first; the IMU's motion energy says whether the body is
///   still; a fast rotation counts; GPS moving and Doppler speed count without
///   an IMU, and when "fast" though the IMU is still (a bike, a hand-held
///   device). GPS "movement" without speed (drift at a stop) does not.
/// * Pausing: no step for `stillDwell` and a still IMU, or no evidence of
///   motion for `pauseDwell`; back-dated to the last motion, so moving time
///   is right although the decision needs a dwell.
/// * Resuming: `resumeSteps` steps within `resumeWindow` (back-dated to the
///   first), or sustained GPS motion. Rotation alone never resumes (gestures
///   at a desk would).
public struct AutoPauseDetector: Sendable {
    /// The settings; a new activity's (at a session's start) take effect at once.
    public var config: AutoPauseConfig {
        didSet { if config.wheels != oldValue.wheels { wheels = config.wheels.map(WheelPause.init(rule:)) } }
    }
    public private(set) var paused = false
    /// When watching (re)started: nothing is back-dated before it.
    private var origin = -Double.infinity
    private var lastStep = -Double.infinity
    /// The IMU's latest verdict: moving (energy or rotation) or still.
    private var imuMovingNow = false
    private var lastRotation = -Double.infinity
    private var lastSample = -Double.infinity
    private var lastGPSMoving = -Double.infinity
    private var gpsMovingSince = Double.nan
    private var gpsFastSince = Double.nan
    private var lastGPSFast = -Double.infinity
    /// Last fix the GPS called moving while the IMU felt motion too: the two
    /// agree, so it is motion even without steps (a step the detector missed).
    private var lastCorroborated = -Double.infinity
    /// Last fix whose Doppler speed was at least walking pace (`moveSpeed`).
    private var lastGPSWalking = -Double.infinity
    private var recentSteps = RecentInstants()
    /// The ride's rule, when the activity is on wheels.
    private var wheels: WheelPause?
    /// Where the current pause began (back-dated), so that evidence of the climb before it cannot end it.
    private var pausedSince = -Double.infinity
    private var confirmation = StepConfirmation()
    /// The last step that counts: every one, or, when the GPS vets steps, those it does not contradict.
    private func lastCountedStep(at t: Double) -> Double {
        config.gpsConfirmsSteps ? confirmation.lastCounted(at: t) : lastStep
    }

    public init(config: AutoPauseConfig = AutoPauseConfig()) {
        self.config = config
        wheels = config.wheels.map(WheelPause.init(rule:))
    }

    /// A decision the detector took.
    public enum Decision: Sendable, Equatable {
        /// Stopped at `since`, decided at `at`.
        case pause(since: Double, at: Double, cause: AutoPauseCause)
        /// Moving again since `since`, decided at `at`.
        case resume(since: Double, at: Double, cause: AutoPauseCause)
    }

    /// Starts watching afresh (session start, manual resume) as if moving at `t`.
    public mutating func restart(at t: Double) {
        paused = false
        origin = t
        recentSteps = RecentInstants()
    }

    /// True while IMU samples arrive.
    private func imuActive(at t: Double) -> Bool { t - lastSample <= 1 }

    /// One IMU sample's verdict: `still` from the motion energy, and the
    /// rotation rate about the seed's axes.
    public mutating func imu(still: Bool, rotation: Double, at t: Double) {
        lastSample = t
        if rotation > config.gyroThreshold { lastRotation = t }
        imuMovingNow = !still || rotation > config.gyroThreshold
    }

    public mutating func step(at t: Double) -> Decision? {
        guard wheels == nil else { return nil }
        lastStep = max(lastStep, t)
        confirmation.step(at: t)
        recentSteps.append(t)
        guard paused, !(config.gpsConfirmsSteps && confirmation.standing(at: t)) else { return nil }
        return resumeOnSteps(at: t)
    }

    /// `resumeSteps` steps within `resumeWindow` resume, from the first of them (with the GPS vetting them,
    /// from where the GPS saw the wearer set off, when that was earlier: steps come back late).
    private mutating func resumeOnSteps(at t: Double) -> Decision? {
        let n = config.resumeSteps
        // Steps held back wait for the next 1 Hz fix: with the GPS vetting steps they may be that much older.
        let window = config.resumeWindow + (config.gpsConfirmsSteps ? 1.5 : 0)
        guard recentSteps.count >= n, let first = recentSteps.recent(n), t - first <= window else { return nil }
        let gps = config.gpsConfirmsSteps && !gpsMovingSince.isNaN ? max(gpsMovingSince, pausedSince) : first
        paused = false
        confirmation.resumed(through: lastStep)
        return .resume(since: min(first, gps), at: t, cause: .steps)
    }

    /// The GPS filter's verdict for one fix, the receiver's Doppler speed and,
    /// when the filter trusts that speed, what it says of slow progress.
    ///
    /// Without an IMU the GPS evidence of motion is the Doppler speed's steady
    /// progress when there is one (`SlowProgress`: a hiker at 0.4 m/s is
    /// moving; the stop and the setting off are dated by the fixes at speed),
    /// else the filter's verdict from the positions.
    public mutating func gps(moving: Bool, speed: Double, progress: GPSProgress? = nil, at t: Double) -> Decision? {
        if wheels != nil { return wheelsFix(moving: moving, speed: speed, at: t) }
        confirmation.fix(progress, at: t)
        let agrees = !config.gpsConfirmsSteps || progress?.atSpeed != false
        if moving && imuActive(at: t) && imuMovingNow && agrees { lastCorroborated = t }
        if progress?.creeping ?? moving {
            if gpsMovingSince.isNaN { gpsMovingSince = min(progress?.since ?? t, t) }
            lastGPSMoving = max(lastGPSMoving, min(progress?.lastMotion ?? t, t))
        } else {
            gpsMovingSince = .nan
        }
        if speed.isFinite, speed >= config.walkingDoppler { lastGPSWalking = t }
        if speed.isFinite, speed >= config.vetoSpeed {
            if gpsFastSince.isNaN { gpsFastSince = t }
            lastGPSFast = t
        } else {
            gpsFastSince = .nan
        }
        guard paused else { return nil }
        // With the GPS vetting steps, those the GPS held back resume once a fix at speed agrees.
        if config.gpsConfirmsSteps, imuActive(at: t), progress?.atSpeed == true, let d = resumeOnSteps(at: t) { return d }
        if !imuActive(at: t), !gpsMovingSince.isNaN {
            paused = false
            return .resume(since: gpsMovingSince, at: t, cause: .gpsMotion)
        }
        if !gpsFastSince.isNaN, t - gpsFastSince >= config.fastDwell {
            // The wearer set off when the Doppler first read progress, before reaching the veto speed.
            let setOff = gpsMovingSince.isNaN ? gpsFastSince : max(min(gpsMovingSince, gpsFastSince), pausedSince)
            paused = false
            return .resume(since: setOff, at: t, cause: .gpsSpeed)
        }
        return nil
    }

    /// Time passes: pause once the wearer has stopped long enough.
    public mutating func tick(at t: Double) -> Decision? {
        guard config.enabled, !paused, origin.isFinite else { return nil }
        if let w = wheels {
            return w.stopped(at: t, origin: origin) ? pause(since: max(w.lastFast, origin), at: t, cause: .slow) : nil
        }
        let fast = t - lastGPSFast < config.fastDwell
        if imuActive(at: t) {
            // Quick: no step for the dwell and the body still now (the energy
            // average has decayed by then; waiting for it to have been low for
            // a whole dwell would only add latency) -- unless the receiver still
            // measures walking speed: Doppler drops at once at a real stop, so
            // a stride the detector missed does not pause the run.
            let gpsWalking = t - lastGPSWalking < config.stillDwell + 1  // one 1 Hz fix may dip
            let lastStep = lastCountedStep(at: t)
            if !fast, !gpsWalking, t - max(lastStep, origin) >= config.stillDwell, !imuMovingNow {
                return pause(since: max(lastStep, origin), at: t, cause: .still)
            }
            // Motion energy without steps (gestures, fidgeting) does not keep
            // a workout going for ever; fast rotations (the seed's rule) do, and
            // so does GPS movement while the body moves too.
            let anyMotion = max(lastStep, lastGPSFast, lastRotation, lastCorroborated, origin)
            if t - anyMotion >= config.pauseDwell {
                return pause(since: anyMotion, at: t, cause: .noSteps)
            }
            return nil
        }
        let lastMotion = max(lastGPSMoving, lastStep, origin)
        if t - lastMotion >= config.pauseDwell {
            return pause(since: lastMotion, at: t, cause: .noMotion)
        }
        return nil
    }

    /// The session is being stopped at `t`: is the wearer already standing?
    ///
    /// While recording, a dwell tells a stop from a hesitation; when the
    /// wearer ends the session the question is answered, so there is no dwell
    /// to wait out. A tail with no evidence of motion (the same evidence the
    /// slow path weighs: steps, fast rotation, GPS speed, corroborated GPS
    /// motion, walking Doppler) for at least `endDwell` — longer than any
    /// stride — is a pause from the last motion on: the 6 s spent at the
    /// finish before pressing stop are not moving time. Shorter tails (a stop
    /// pressed mid-stride) stay moving.
    public mutating func sessionEnds(at t: Double) -> Decision? {
        guard config.enabled, !paused, origin.isFinite else { return nil }
        let lastMotion: Double
        let lastStep = lastCountedStep(at: t)
        if let w = wheels {
            lastMotion = max(w.lastFast, origin)
        } else if imuActive(at: t) {
            lastMotion = max(lastStep, lastGPSFast, lastRotation, lastCorroborated, lastGPSWalking, origin)
        } else {
            lastMotion = max(lastGPSMoving, lastStep, origin)
        }
        guard t - lastMotion >= config.endDwell else { return nil }
        return pause(since: lastMotion, at: t, cause: .stillAtStop)
    }

    /// Whether a climb at `t` would count (`climbing`): without an IMU and
    /// off wheels, so that the engine need not fit one otherwise.
    public func takesClimb(at t: Double) -> Bool {
        wheels == nil && !imuActive(at: t)
    }

    /// The altitude shows a steady climb or descent (`ClimbEvidence`), dated
    /// `since`: without an IMU that is motion, however slowly the wearer
    /// crosses the ground; it resumes a pause when it is dated after its start.
    /// With an IMU, steps and gait decide, and on wheels the speed.
    public mutating func climbing(since: Double, at t: Double) -> Decision? {
        guard takesClimb(at: t) else { return nil }
        let when = min(since, t)
        lastGPSMoving = max(lastGPSMoving, when)
        guard paused, when > pausedSince else { return nil }
        paused = false
        return .resume(since: when, at: t, cause: .climb)
    }

    /// A fix on wheels: resumes once the wheels turn again (`WheelPause`).
    private mutating func wheelsFix(moving: Bool, speed: Double, at t: Double) -> Decision? {
        guard let since = wheels?.fix(speed: speed, moving: moving, at: t), paused else { return nil }
        paused = false
        return .resume(since: since, at: t, cause: .gpsSpeed)
    }

    private mutating func pause(since: Double, at t: Double, cause: AutoPauseCause) -> Decision {
        paused = true
        pausedSince = min(since, t)
        recentSteps = RecentInstants()
        return .pause(since: min(since, t), at: t, cause: cause)
    }
}

/// The last few instants, fixed size, oldest dropped.
struct RecentInstants: Sendable {
    private var items: (Double, Double, Double, Double) = (0, 0, 0, 0)
    private var next = 0
    private(set) var count = 0

    mutating func append(_ t: Double) {
        switch next {
        case 0: items.0 = t
        case 1: items.1 = t
        case 2: items.2 = t
        default: items.3 = t
        }
        next = (next + 1) & 3
        count = min(count + 1, 4)
    }

    /// The n-th most recent instant (1 = newest), n ≤ 4.
    func recent(_ n: Int) -> Double? {
        guard n >= 1, n <= count else { return nil }
        switch (next - n + 8) & 3 {
        case 0: return items.0
        case 1: return items.1
        case 2: return items.2
        default: return items.3
        }
    }
}
