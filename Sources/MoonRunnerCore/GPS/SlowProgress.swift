/// Slow, steady progress in the receiver's Doppler speed: a hiker at 0.4 m/s
/// on a 30 % slope, a runner power-hiking a climb, as against the noise of a
/// standing receiver: 0.0–0.2 m/s (`gps/real`: the ZED-F9P's 95th percentile
/// 0.18, worst 0.30; `gps/sim`: medians 0.1–0.2, fixes up to 0.5). Single
/// fixes overlap a wearer at 0.4 m/s (0.26–0.59 m/s); the median of the last
/// five does not: in every standing second of the shared data it stays below
/// `creepSpeed` (0.3 m/s), and a wearer at 0.4 m/s keeps it above.
///
/// `lastMotion` and `since` are the newest and oldest of those five at
/// `creepSpeed` or more, so a pause and a resume are back-dated to where the
/// wearer stopped and set off. Only a speed trusted as Doppler is fed
/// (`DopplerCheck`). O(1) state, no allocation; times are the receiver's.
struct SlowProgress: Sendable {
    private static let window = 5

    private var speeds: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)
    private var times: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)
    private var count = 0
    private var next = 0
    /// The wearer creeps: the median of the last five is at `creepSpeed` or more.
    private(set) var creeping = false
    /// The median of the last five speeds, m/s (0 until there are five).
    private(set) var median = 0.0
    /// Receiver time of the newest fix at speed in the window, while creeping.
    private(set) var lastMotion = -Double.infinity
    /// Receiver time of the oldest fix at speed in the window when creeping began.
    private(set) var since = Double.nan

    /// One fix's Doppler speed (m/s) at receiver time `t`; `creepSpeed` in m/s.
    mutating func observe(speed: Double, at t: Double, creepSpeed: Double) {
        set(next, speed: speed, time: t)
        next = (next + 1) % Self.window
        count = min(count + 1, Self.window)
        guard count == Self.window else { return }
        var above = 0
        var newest = -Double.infinity, oldest = Double.infinity
        for i in 0..<Self.window {
            let (v, at) = get(i)
            // The median is the one with two below it and two above (ties by index).
            var below = 0
            for j in 0..<Self.window where j != i {
                let w = get(j).0
                if w < v || (w == v && j < i) { below += 1 }
            }
            if below == Self.window / 2 { median = v }
            guard v >= creepSpeed else { continue }
            above += 1
            newest = max(newest, at)
            oldest = min(oldest, at)
        }
        let was = creeping
        creeping = above > Self.window / 2
        if creeping {
            lastMotion = newest
            if !was { since = oldest }
        }
    }

    /// Forgets the speeds (a gap, a loss of fix): the next five decide afresh.
    mutating func reset() {
        count = 0
        creeping = false
        median = 0
    }

    private mutating func set(_ i: Int, speed: Double, time: Double) {
        switch i {
        case 0: speeds.0 = speed; times.0 = time
        case 1: speeds.1 = speed; times.1 = time
        case 2: speeds.2 = speed; times.2 = time
        case 3: speeds.3 = speed; times.3 = time
        default: speeds.4 = speed; times.4 = time
        }
    }

    private func get(_ i: Int) -> (Double, Double) {
        switch i {
        case 0: return (speeds.0, times.0)
        case 1: return (speeds.1, times.1)
        case 2: return (speeds.2, times.2)
        case 3: return (speeds.3, times.3)
        default: return (speeds.4, times.4)
        }
    }
}

/// What the receiver's Doppler speed says of the wearer's progress, on the
/// engine's clock (`GPSFilterOutput.progress`).
public struct GPSProgress: Sendable, Equatable {
    /// The median of the last five speeds is at `GPSFilterConfig.creepSpeed` or more.
    public var creeping: Bool
    /// When the current run of progress began (the first fix at speed).
    public var since: Double
    /// The last fix at speed while creeping (where a stop began).
    public var lastMotion: Double
    /// This fix's own speed is at the creeping speed or more.
    public var atSpeed: Bool

    public init(creeping: Bool, since: Double, lastMotion: Double, atSpeed: Bool) {
        self.creeping = creeping
        self.since = since
        self.lastMotion = lastMotion
        self.atSpeed = atSpeed
    }
}
