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
    /// manual | session_end
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

/// The derived figures of a session: splits, laps, calories, best pace.
public struct SessionFigures: Codable, Sendable, Equatable {
    public var caloriesKcal: Double
    /// The fastest whole-km split, seconds per km; null before the first km.
    @NullCoded public var bestPaceSPerKm: Double?
    public var splitsKm: [SplitInfo]
    public var splitsMi: [SplitInfo]
    public var laps: [LapInfo]

    public init(caloriesKcal: Double, splitsKm: [Split], splitsMi: [Split], laps: [LapSummary]) {
        self.caloriesKcal = caloriesKcal
        bestPaceSPerKm = splitsKm.filter { !$0.isPartial && $0.pace.isFinite }.map(\.pace).min()
        self.splitsKm = splitsKm.map(SplitInfo.init)
        self.splitsMi = splitsMi.map(SplitInfo.init)
        self.laps = laps.map(LapInfo.init)
    }

    enum CodingKeys: String, CodingKey {
        case caloriesKcal = "calories_kcal", bestPaceSPerKm = "best_pace_s_per_km", splitsKm = "splits_km",
             splitsMi = "splits_mi", laps
    }
}
