import MoonRunnerCore

/// Everything an export needs about one recorded session, as the store
/// keeps it. Writers are pure functions of this value.
public struct ExportSession: Sendable {
    public var id: Int64
    public var activity: Activity
    /// Engine clock (UNIX seconds) of the start.
    public var startTime: Double
    /// Engine clock of the end (the stop event, else start + elapsed, else the last point).
    public var endTime: Double
    public var stats: SessionStats
    /// Accepted track points in time order.
    public var points: [TrackPoint]
    public var events: [SessionEvent]
    public var pauses: [PauseInterval]
    public var stepSeconds: [StepSecondSample]
    public var laps: [LapSummary]
    /// Calories use this model (body mass from the configuration).
    public var calorieModel: CalorieModel
    /// Shown as the track name; default "MoonRunner run 12".
    public var title: String
    /// Name of the course the session followed, if any (GPX `desc`, TCX `Notes`).
    public var course: String?
    /// The points that course's file named beside its line (turns, water, a
    /// summit), placed on it: kept in the formats that can carry them (GPX
    /// waypoints, FIT `course_point`s), so the export reads back as the course.
    public var coursePoints: [CourseCue]
    /// Every heart-rate reading (NaN: missing) and R–R interval, in time order.
    public var heartRate: [HeartRatePoint]
    public var rrIntervals: [RRInterval]
    /// Zones, training load and calories from heart rate.
    public var heartRateProfile: HeartRateProfile
    /// The planned workout the session ran, if any: the FIT activity carries
    /// its `workout` and `workout_step` messages, so the laps read against it.
    public var workout: Workout?

    /// `laps` default to the laps computed from the lap events and the track.
    public init(id: Int64, activity: Activity, startTime: Double, endTime: Double? = nil,
                stats: SessionStats, points: [TrackPoint], events: [SessionEvent] = [],
                pauses: [PauseInterval] = [], stepSeconds: [StepSecondSample] = [],
                laps: [LapSummary]? = nil, calorieModel: CalorieModel = CalorieModel(),
                title: String? = nil, course: String? = nil, coursePoints: [CourseCue] = [],
                heartRate: [HeartRatePoint] = [], rrIntervals: [RRInterval] = [],
                heartRateProfile: HeartRateProfile = HeartRateProfile(), workout: Workout? = nil) {
        self.id = id
        self.activity = activity
        self.startTime = startTime
        let stop = events.last(where: { $0.kind == .stop })?.time
        let fromStats = stats.elapsed > 0 ? startTime + stats.elapsed : nil
        self.endTime = max(startTime, endTime ?? stop ?? fromStats ?? points.last?.time ?? startTime)
        self.stats = stats
        self.points = points
        self.events = events
        self.pauses = pauses
        self.stepSeconds = stepSeconds.sorted { $0.second < $1.second }
        self.calorieModel = calorieModel
        self.title = title ?? "MoonRunner \(activity.profile.sport.noun) \(id)"
        self.course = course
        self.coursePoints = coursePoints
        self.heartRate = heartRate
        self.rrIntervals = rrIntervals
        self.heartRateProfile = heartRateProfile
        self.workout = workout
        self.laps = laps ?? Laps.compute(points: points, events: events, pauses: pauses,
                                         stepSeconds: self.stepSeconds, start: startTime, end: self.endTime)
    }

    /// Seconds from start to end, pauses included.
    public var elapsed: Double { stats.elapsed > 0 ? stats.elapsed : endTime - startTime }
    /// Seconds outside pauses.
    public var moving: Double {
        stats.moving > 0 ? stats.moving : PausedTime(pauses).moving(from: startTime, to: endTime)
    }
    /// The session's distance in metres: the engine's figure when it has one
    /// (what the wearer saw), else the length of the track.
    public var distance: Double { stats.distance > 0 ? stats.distance : TrackDistance(points: points).total }
    /// Steps of the whole session.
    public var totalSteps: Int { stats.steps > 0 ? stats.steps : stepSeconds.reduce(0) { $0 + $1.steps } }
    /// "Followed course NAME", for the formats' free-text fields.
    public var courseNote: String? { course.map { "Followed course \($0)" } }
    /// "Elevation from the terrain model 96 %, GPS 4 %" when a terrain model gave any of the
    /// altitudes: which source each stretch used, in the shares of the track's points.
    public var elevationNote: String? {
        guard stats.demPoints > 0 else { return nil }
        let s = stats.altitudeShares
        let parts = [("the barometer", s.barometric), ("the terrain model", s.dem), ("GPS", s.gps)]
            .filter { $0.1 > 0 }.map { "\($0.0) \(Int(($0.1 * 100).rounded())) %" }
        return "Elevation from " + parts.joined(separator: ", ")
    }
    /// The formats' free-text note (GPX `desc`, TCX `Notes`): the course followed, where the elevation came from.
    public var note: String? {
        let parts = [courseNote, elevationNote].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ". ")
    }

    /// True when the session recorded any heart rate.
    public var hasHeartRate: Bool { heartRate.contains { $0.bpm.isFinite } }

    /// Heart rate over the moving time of `[from, to]` (the whole session by default).
    public func heartRateSummary(from: Double? = nil, to: Double? = nil) -> HeartRateSummary {
        HeartRateSummary(readings: heartRate, paused: PausedTime(pauses), from: from ?? startTime, to: to ?? endTime,
                         profile: heartRateProfile)
    }

    /// How the calories are estimated: from heart rate when it covers the session.
    public var calorieMethod: CalorieMethod { heartRateSummary().calorieMethod }

    /// Estimated kcal: Keytel 2005 from heart rate when it covers 90 % of the
    /// moving time, else the ACSM equations over the track.
    public var calories: Double {
        let hr = heartRateSummary()
        if hr.calorieMethod == .heartRate { return hr.heartRateKcal }
        return calorieModel.kcal(points: points, pauses: pauses, activity: activity)
    }

    /// kcal of one lap, by the session's method.
    public func calories(of lap: LapSummary) -> Double {
        if calorieMethod == .heartRate {
            return heartRateSummary(from: lap.startTime, to: lap.endTime).heartRateKcal
        }
        return calorieModel.kcal(points: points[lap.points], paused: PausedTime(pauses), activity: activity)
    }
}
