import MoonRunnerCore

/// One km (or mile) split in `SESSION`.
public struct SplitInfo: Codable, Sendable, Equatable {
    public var number: Int
    /// Metres in the split (less than a unit for the final partial one).
    public var distanceM: Double
    public var elapsedS: Double
    public var movingS: Double
    /// Seconds per km or mile (the split's unit) over moving time; null when not moving.
    @NullCoded public var paceS: Double?
    @NullCoded public var elevationChangeM: Double?
    public var partial: Bool

    public init(_ s: Split) {
        number = s.number
        distanceM = s.distance
        elapsedS = s.elapsed
        movingS = s.moving
        paceS = s.pace.isFinite ? s.pace : nil
        elevationChangeM = s.elevationChange.isFinite ? s.elevationChange : nil
        partial = s.isPartial
    }

    enum CodingKeys: String, CodingKey {
        case number, distanceM = "distance_m", elapsedS = "elapsed_s", movingS = "moving_s", paceS = "pace_s",
             elevationChangeM = "elevation_change_m", partial
    }
}

/// One lap (between `?LAP;` marks) in `SESSION`.
public struct LapInfo: Codable, Sendable, Equatable {
    public var number: Int
    public var startTime: Double
    public var distanceM: Double
    public var elapsedS: Double
    public var movingS: Double
    public var avgSpeedMps: Double
    public var maxSpeedMps: Double
    public var steps: Int
    public var cadenceSpm: Double
    /// manual | workout_step | session_end
    public var trigger: String

    public init(_ l: LapSummary) {
        number = l.number
        startTime = l.startTime
        distanceM = l.distance
        elapsedS = l.elapsed
        movingS = l.moving
        avgSpeedMps = l.averageSpeed
        maxSpeedMps = l.maxSpeed
        steps = l.steps
        cadenceSpm = l.averageCadence
        trigger = l.trigger.rawValue
    }

    enum CodingKeys: String, CodingKey {
        case number, startTime = "start_time", distanceM = "distance_m", elapsedS = "elapsed_s", movingS = "moving_s",
             avgSpeedMps = "avg_speed_mps", maxSpeedMps = "max_speed_mps", steps, cadenceSpm = "cadence_spm", trigger
    }
}

/// A session's heart rate over its moving time, in `SESSION.figures.heart_rate` (since protocol 1.2).
public struct HeartRateFigures: Codable, Sendable, Equatable {
    @NullCoded public var avgBpm: Double?
    @NullCoded public var maxBpm: Double?
    /// Seconds in zones 1 to 5.
    public var zoneS: [Double]
    /// Banister's training impulse.
    public var trimp: Double
    /// Share of moving time with a heart rate, 0–1.
    public var coverage: Double
    /// R–R intervals recorded.
    public var rrIntervals: Int

    public init(_ s: HeartRateSummary, rrIntervals: Int) {
        avgBpm = s.averageBPM
        maxBpm = s.maxBPM
        zoneS = s.zoneSeconds
        trimp = s.trimp
        coverage = s.coverage
        self.rrIntervals = rrIntervals
    }

    enum CodingKeys: String, CodingKey {
        case avgBpm = "avg_bpm", maxBpm = "max_bpm", zoneS = "zone_s", trimp, coverage, rrIntervals = "rr_intervals"
    }
}

/// The derived figures of a session: splits, laps, calories, best pace.
public struct SessionFigures: Codable, Sendable, Equatable {
    public var caloriesKcal: Double
    /// `heart_rate` (Keytel 2005, when heart rate covers 90 % of moving time) or `acsm` (since protocol 1.2).
    public var caloriesMethod: CalorieMethod?
    /// Null for a session without heart rate (since protocol 1.2).
    @NullCoded public var heartRate: HeartRateFigures?
    /// The fastest whole-km split, seconds per km; null before the first km.
    @NullCoded public var bestPaceSPerKm: Double?
    public var splitsKm: [SplitInfo]
    public var splitsMi: [SplitInfo]
    public var laps: [LapInfo]

    public init(caloriesKcal: Double, splitsKm: [Split], splitsMi: [Split], laps: [LapSummary],
                caloriesMethod: CalorieMethod = .acsm, heartRate: HeartRateFigures? = nil) {
        self.caloriesKcal = caloriesKcal
        self.caloriesMethod = caloriesMethod
        self.heartRate = heartRate
        bestPaceSPerKm = splitsKm.filter { !$0.isPartial && $0.pace.isFinite }.map(\.pace).min()
        self.splitsKm = splitsKm.map(SplitInfo.init)
        self.splitsMi = splitsMi.map(SplitInfo.init)
        self.laps = laps.map(LapInfo.init)
    }

    enum CodingKeys: String, CodingKey {
        case caloriesKcal = "calories_kcal", caloriesMethod = "calories_method", heartRate = "heart_rate", bestPaceSPerKm = "best_pace_s_per_km", splitsKm = "splits_km",
             splitsMi = "splits_mi", laps
    }
}
