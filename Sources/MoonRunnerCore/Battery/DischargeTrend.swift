/// How fast the charge falls: the least-squares slope of the charge over the
/// last `window` seconds, and the minutes until it reaches a floor.
///
/// A slope over minutes, not the difference of two readings: a MAX17048's
/// charge moves in steps of 1/256 %, a voltage-based estimate jitters with
/// the load, and a runner's pace changes the draw; ten minutes of readings
/// average all of that. Points closer than `window`/`capacity` to the last
/// one kept are skipped, so a fixed ring covers the window whatever the
/// reading rate. Pure, no allocation after `init`.
struct DischargeTrend: Sendable {
    static let capacity = 64
    /// Seconds of readings the slope is fitted over.
    let window: Double
    private var times: [Double]
    private var values: [Double]
    private var next = 0
    private var count = 0

    init(window: Double) {
        self.window = window
        times = [Double](repeating: .nan, count: Self.capacity)
        values = times
    }

    /// Forgets every point (the charge jumped: the old points no longer describe the cell).
    mutating func reset() {
        self = Self(window: window)
    }

    mutating func add(t: Double, percent: Double) {
        guard t.isFinite, percent.isFinite else { return }
        if count > 0 {
            let last = times[(next + Self.capacity - 1) % Self.capacity]
            guard t - last >= window / Double(Self.capacity) else { return }
        }
        times[next] = t
        values[next] = percent
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Percent per second over the window ending at `now` (negative while
    /// discharging); nil with fewer than three points or under two minutes of them.
    func slope(at now: Double) -> Double? {
        var n = 0.0, st = 0.0, sv = 0.0, first = Double.infinity, last = -Double.infinity
        for i in 0..<count where now - times[i] <= window {
            n += 1
            st += times[i]
            sv += values[i]
            first = min(first, times[i])
            last = max(last, times[i])
        }
        guard n >= 3, last - first >= 120 else { return nil }
        let mt = st / n, mv = sv / n
        var stv = 0.0, stt = 0.0
        for i in 0..<count where now - times[i] <= window {
            stv += (times[i] - mt) * (values[i] - mv)
            stt += (times[i] - mt) * (times[i] - mt)
        }
        return stt > 0 ? stv / stt : nil
    }

    /// Minutes until the charge `percent` falls to `floor` at the current
    /// rate; nil while it does not fall (charging, resting) or is unknown.
    /// Capped at two days: a rate that slow says "not draining", not a time.
    func minutesLeft(from percent: Double, to floor: Double, at now: Double) -> Double? {
        guard let s = slope(at: now), s < 0, percent.isFinite else { return nil }
        let minutes = max(0, percent - floor) / -s / 60
        return min(minutes, 2 * 24 * 60)
    }
}
