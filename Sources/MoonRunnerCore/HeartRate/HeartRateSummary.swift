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

    public init(readings: some Collection<HeartRateReading>, paused: PausedTime, from start: Double, to end: Double,
                profile: HeartRateProfile) {
        let floors = profile.zoneFloors
        var zones = [Double](repeating: 0, count: 5)
        var covered = 0.0, weighted = 0.0, trimp = 0.0, kcal = 0.0
        var top = -Double.infinity
        var previous: HeartRateReading?
        func close(_ r: HeartRateReading, until next: Double) {
            guard r.bpm.isFinite else { return }
            let a = max(r.time, start), b = min(next, r.time + Self.hold, end)
            let m = paused.moving(from: a, to: b)
            guard m > 0 else { return }
            covered += m
            weighted += r.bpm * m
            var z = 0
            for f in floors where r.bpm >= f { z += 1 }
            zones[min(z, 4)] += m
            trimp += profile.trimpPerMinute(bpm: r.bpm) * m / 60
            kcal += profile.kcalPerMinute(bpm: r.bpm) * m / 60
        }
        for r in readings {
            if let p = previous { close(p, until: r.time) }
            if r.bpm.isFinite, r.time >= start, r.time <= end, !paused.isPaused(at: r.time) { top = max(top, r.bpm) }
            previous = r
        }
        if let p = previous { close(p, until: .infinity) }
        let moving = paused.moving(from: start, to: end)
        averageBPM = covered > 0 ? weighted / covered : nil
        maxBPM = top.isFinite ? top : nil
        zoneSeconds = zones
        self.trimp = trimp
        coveredSeconds = covered
        movingSeconds = moving
        heartRateKcal = covered > 0 ? kcal * moving / covered : 0
    }

    private enum CodingKeys: String, CodingKey {
        case averageBPM = "avg_bpm", maxBPM = "max_bpm", zoneSeconds = "zone_s", trimp,
             coveredSeconds = "covered_s", movingSeconds = "moving_s", heartRateKcal = "heart_rate_kcal"
    }
}
