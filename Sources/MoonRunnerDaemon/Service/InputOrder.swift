import MoonRunnerCore
import MoonRunnerSensors

/// One input for the engine, in the order `InputOrder` gives them.
enum OrderedInput {
    case imu(IMUSample)
    case baro(BaroSample)
    case fix(GPSFix, at: Double)
}

/// Puts the sensors' held batches and gpsd's fixes in the order of their
/// times before the engine sees them, as `moonrunner analyze` does (a fix
/// before the samples of its instant and after those before it). The IMU's
/// FIFO is read in bursts, so a fix usually arrives before the samples of the
/// second that led up to it: judged then, the wearer's last steps would not
/// yet be known and a run taken for a stop. The newest fix therefore waits
/// until the IMU's samples reach its time (at the next fix, at the latest),
/// unless the IMU has gone quiet (none, parked, lost) or `flush` is asked.
struct InputOrder {
    /// A fix waits at most this long behind the IMU's last sample; an IMU
    /// further behind is taken for quiet and not waited for.
    static let quietAfter = 1.5

    private var fixes: [(fix: GPSFix, at: Double)] = []
    /// Barometer readings newer than the IMU's samples, kept so that a
    /// waiting fix still comes before them.
    private var baro: [BaroSample] = []
    /// The time of the IMU's newest sample passed on.
    private(set) var imuThrough = -Double.infinity

    init() {
        fixes.reserveCapacity(4)
        baro.reserveCapacity(8)
    }

    /// A placeholder that holds no storage (while the service's own is in use).
    private init(empty: Void) {}
    static let empty = InputOrder(empty: ())

    /// The time of the oldest fix still waiting, nil when none is.
    var waitingSince: Double? { fixes.first?.at }

    mutating func add(fix: GPSFix, at t: Double) {
        fixes.append((fix, t))
    }

    /// Passes on the batches' samples and the fixes and readings that come
    /// before each, then whatever need not wait (everything with `flush`).
    mutating func release(imu: [IMUBatch], baro batches: [BaroBatch], flush: Bool,
                          to feed: (OrderedInput) -> Void) {
        for batch in batches { baro.append(contentsOf: batch.samples) }
        for batch in imu {
            for s in batch.samples {
                drain(through: s.t, to: feed)
                feed(.imu(s))
                imuThrough = max(imuThrough, s.t)
            }
        }
        drain(through: horizon(flush: flush), to: feed)
    }

    /// How far fixes and readings may go now: up to the IMU's newest sample,
    /// and every fix but the newest (it has waited a whole fix interval).
    private func horizon(flush: Bool) -> Double {
        let quiet = { (t: Double) in t - imuThrough > Self.quietAfter }
        if flush { return .infinity }
        if let newest = fixes.last {
            if quiet(newest.at) { return .infinity }
            return fixes.count > 1 ? max(imuThrough, fixes[fixes.count - 2].at) : imuThrough
        }
        if let oldest = baro.first, quiet(oldest.t) { return .infinity }
        return imuThrough
    }

    /// Fixes and readings up to `t`, in time order (a fix first at a tie, as `analyze` has it).
    private mutating func drain(through t: Double, to feed: (OrderedInput) -> Void) {
        while true {
            let fixAt = fixes.first?.at ?? .infinity
            let readingAt = baro.first?.t ?? .infinity
            let first = min(fixAt, readingAt)
            guard first.isFinite, first <= t else { return }
            if fixAt <= readingAt {
                let f = fixes.removeFirst()
                feed(.fix(f.fix, at: f.at))
            } else {
                feed(.baro(baro.removeFirst()))
            }
        }
    }
}
