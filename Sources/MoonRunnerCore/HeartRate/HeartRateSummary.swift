/// Which equation gave a session's calories.
public enum CalorieMethod: String, Sendable, Codable, CaseIterable {
    /// Keytel et al. (2005) from heart rate, with sex, age and body mass.
    case heartRate = "heart_rate"
    /// The ACSM metabolic equations from speed and grade (`CalorieModel`).
    case acsm
}

/// A session's heart-rate figures over its moving time: average, maximum,
/// seconds in each of the five zones, Banister's training load and the
/// calories from heart rate.
///
/// Each reading holds until the next one, for at most `hold` seconds (5 s:
/// the limit, after which the heart rate is missing); readings
/// without a heart rate hold nothing. Only the moving part of that time
/// counts (pauses from the session's final list, so an auto-pause decided
/// seconds later is taken out exactly). The average is the mean over that
/// time, the maximum the highest reading taken while moving. Pure.
public struct HeartRateSummary: Sendable, Equatable, Codable {
    /// bpm; nil without a heart rate while moving.
    public var averageBPM: Double?
    public var maxBPM: Double?
    /// Seconds in zones 1 to 5.
    public var zoneSeconds: [Double]
    /// Banister TRIMP (minutes × weighted reserve fraction).
    public var trimp: Double
    /// Moving seconds with a heart rate.
    public var coveredSeconds: Double
    /// Moving seconds of the session (or of the window asked for).
    public var movingSeconds: Double
    /// kcal from heart rate over the covered time, brought to the whole moving time.
    public var heartRateKcal: Double

    /// Seconds a reading counts for at most.
    public static let hold = 5.0
    /// Calories come from heart rate when it covers this share of moving time
    /// (a strap that drops out for a few minutes of an hour still describes the
    /// effort; one that joined halfway does not).
    public static let coverageForCalories = 0.9

    public var coverage: Double { movingSeconds > 0 ? coveredSeconds / movingSeconds : 0 }
    /// The calorie method this session's figures call for.
    public var calorieMethod: CalorieMethod { coverage >= Self.coverageForCalories ? .heartRate : .acsm }

    public init(readings: some Collection<HeartRatePoint>, paused: PausedTime, from start: Double, to end: Double,
                profile: HeartRateProfile) {
        var tally = HeartRateTally(profile: profile)
        for r in readings { tally.add(r) }
        self = tally.summary(paused: paused, from: start, to: end)
    }

    init(parts: HeartRateTally.Parts, movingSeconds moving: Double) {
        averageBPM = parts.covered > 0 ? parts.weighted / parts.covered : nil
        maxBPM = parts.top.isFinite ? parts.top : nil
        zoneSeconds = parts.zones
        trimp = parts.trimp
        coveredSeconds = parts.covered
        movingSeconds = moving
        heartRateKcal = parts.covered > 0 ? parts.kcal * moving / parts.covered : 0
    }

    private enum CodingKeys: String, CodingKey {
        case averageBPM = "avg_bpm", maxBPM = "max_bpm", zoneSeconds = "zone_s", trimp,
             coveredSeconds = "covered_s", movingSeconds = "moving_s", heartRateKcal = "heart_rate_kcal"
    }
}

/// `HeartRateSummary` kept as the readings arrive, for `STATUS` during a
/// session: the same arithmetic (one code for both), so the live figures
/// and the stored session's agree at the end.
///
/// A reading's time is only final once no pause can still be placed over
/// it: the auto-pause dates a pause back by its dwell (seconds), never by
/// `settleAfter`. Readings older than that are *settled* into running sums
/// with the pauses known then; the newer ones are summed afresh with the
/// pauses of the moment. O(1) memory beyond those recent readings (at most
/// `settleAfter` s of them plus a batch); settling, which builds one
/// `PausedTime`, runs once per `batch` readings, not per reading.
public struct HeartRateTally: Sendable {
    struct Parts: Sendable {
        var covered = 0.0, weighted = 0.0, trimp = 0.0, kcal = 0.0
        var zones = [Double](repeating: 0, count: 5)
        var top = -Double.infinity
    }

    public let profile: HeartRateProfile
    private let floors: [Double]
    private var settled = Parts()
    /// Readings not settled yet, oldest first (the last one still open).
    private var recent: [HeartRatePoint] = []
    /// Seconds after which a reading's share can no longer change (60 s:
    /// well past the auto-pause's back-dating); readings settled per batch.
    public static let settleAfter = 60.0
    static let batch = 256

    public init(profile: HeartRateProfile) {
        self.profile = profile
        floors = profile.zoneFloors
        recent.reserveCapacity(Self.batch * 2)
    }

    public var isEmpty: Bool { recent.isEmpty && settled.covered == 0 && !settled.top.isFinite }

    public mutating func add(_ r: HeartRatePoint) {
        recent.append(r)
    }

    /// Settles the readings whose share ended before `now − settleAfter`,
    /// once `batch` of them have gathered; `pauses` are the session's now.
    public mutating func settle(at now: Double, pauses: [PauseInterval], from start: Double) {
        guard recent.count >= Self.batch else { return }
        let cutoff = now - Self.settleAfter
        var n = 0
        while n + 1 < recent.count, recent[n + 1].time <= cutoff { n += 1 }
        guard n > 0 else { return }
        let paused = PausedTime(pauses)
        for i in 0..<n { close(recent[i], until: recent[i + 1].time, paused: paused, from: start, to: .infinity, into: &settled) }
        recent.removeFirst(n)
    }

    /// The figures over the moving time of `[start, end]`.
    public func summary(paused: PausedTime, from start: Double, to end: Double) -> HeartRateSummary {
        var parts = settled
        for i in recent.indices {
            let next = i + 1 < recent.count ? recent[i + 1].time : .infinity
            close(recent[i], until: next, paused: paused, from: start, to: end, into: &parts)
        }
        return HeartRateSummary(parts: parts, movingSeconds: paused.moving(from: start, to: end))
    }

    /// One reading's share: it holds until the next, at most `hold` seconds, moving time only.
    private func close(_ r: HeartRatePoint, until next: Double, paused: PausedTime, from start: Double, to end: Double,
                       into p: inout Parts) {
        guard r.bpm.isFinite else { return }
        if r.time >= start, r.time <= end, !paused.isPaused(at: r.time) { p.top = max(p.top, r.bpm) }
        let a = max(r.time, start), b = min(next, r.time + HeartRateSummary.hold, end)
        let m = paused.moving(from: a, to: b)
        guard m > 0 else { return }
        p.covered += m
        p.weighted += r.bpm * m
        var z = 0
        for f in floors where r.bpm >= f { z += 1 }
        p.zones[min(z, 4)] += m
        p.trimp += profile.trimpPerMinute(bpm: r.bpm) * m / 60
        p.kcal += profile.kcalPerMinute(bpm: r.bpm) * m / 60
    }
}
