/// Settings of the automatic pause.
public struct AutoPauseConfig: Sendable, Equatable, Codable {
    public var enabled = true
    /// Seconds without any sign of motion before pausing (seed: about 8 s).
    public var pauseDwell = 8.0
    /// Steps within `resumeWindow` seconds that resume a paused workout.
    public var resumeSteps = 2
    public var resumeWindow = 2.0
    /// Doppler speed above which GPS alone says "moving", m/s.
    public var moveSpeed = 1.2
    /// Rotation rate that counts as motion, rad/s (seed: gyro |y| or |z| > 2 rad/s).
    public var gyroThreshold = 2.0

    public init() {}
}

/// Decides when the wearer stopped and started again.
///
/// Evidence of motion: steps (strongest), a fast rotation (the seed's gyro
/// rule), and the GPS filter's moving verdict (Doppler and positions), which
/// keeps a hand-held or bike-mounted device recording although it takes no
/// steps. A pause is
/// back-dated to the last evidence of motion, a resume to the first step of
/// the run of steps that triggered it.
public struct AutoPauseDetector: Sendable {
    public var config: AutoPauseConfig
    /// Last instant anything said "moving".
    public private(set) var lastMotion = -Double.infinity
    private var recentSteps = RecentInstants()
    public private(set) var paused = false

    public init(config: AutoPauseConfig = AutoPauseConfig()) {
        self.config = config
    }

    /// A decision the detector took.
    public enum Decision: Sendable, Equatable {
        /// Stopped at `since`, decided at `at`.
        case pause(since: Double, at: Double, cause: String)
        /// Moving again since `since`, decided at `at`.
        case resume(since: Double, at: Double, cause: String)
    }

    /// Starts watching afresh (session start, manual resume) as if moving at `t`.
    public mutating func restart(at t: Double) {
        lastMotion = t
        paused = false
        recentSteps = RecentInstants()
    }

    public mutating func step(at t: Double) -> Decision? {
        recentSteps.append(t)
        if paused {
            let n = config.resumeSteps
            if recentSteps.count >= n, let first = recentSteps.recent(n), t - first <= config.resumeWindow {
                paused = false
                lastMotion = t
                return .resume(since: first, at: t, cause: "steps")
            }
            return nil
        }
        lastMotion = max(lastMotion, t)
        return nil
    }

    /// A fast rotation (gyro above threshold) is motion while recording; it does
    /// not resume a pause by itself (gestures at a desk would).
    public mutating func rotation(_ rate: Double, at t: Double) {
        if !paused && rate > config.gyroThreshold { lastMotion = max(lastMotion, t) }
    }

    /// The GPS filter's verdict (Doppler and positions together).
    public mutating func gpsMoving(_ moving: Bool, at t: Double) -> Decision? {
        guard moving else { return nil }
        if paused {
            paused = false
            lastMotion = t
            return .resume(since: t, at: t, cause: "gps_motion")
        }
        lastMotion = max(lastMotion, t)
        return nil
    }

    /// Time passes: pause once nothing moved for the dwell.
    public mutating func tick(at t: Double) -> Decision? {
        guard config.enabled, !paused, lastMotion.isFinite, t - lastMotion >= config.pauseDwell else { return nil }
        paused = true
        return .pause(since: lastMotion, at: t, cause: "no_motion")
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
