/// Runs the session engine over recorded inputs, as `moonrunner analyze`
/// does: the session starts at the first input (or at `startAt`, with the
/// inputs before it seen while idle, as a live daemon sees them before
/// `?START`) and stops at the last (or where `finish` says).
/// Inputs must be fed in time order.
public struct TraceAnalysis: Sendable {
    public private(set) var engine: SessionEngine
    private var recorder = Recorder()
    private let profile: ActivityProfile
    private let startAt: Double?
    private let course: FollowedCourse?
    private let workout: WorkoutPlan?
    private var started = false
    /// One entry per position the course matcher was fed.
    public private(set) var courseTimeline: [CourseTimelineEntry] = []

    /// What the engine emitted, kept for the summary.
    private struct Recorder: Sendable {
        var stepTimes: [Double] = []
        var events: [SessionEvent] = []
        var rejections: [FixRejection: Int] = [:]
        var points: [TrackPoint] = []
        var heartRate: [HeartRatePoint] = []
        var rrIntervals: [RRInterval] = []

        mutating func record(_ output: EngineOutput) {
            switch output {
            case let .step(t): stepTimes.append(t)
            case let .event(e): events.append(e)
            case let .point(p): points.append(p)
            case let .rejected(reason, _, _): rejections[reason, default: 0] += 1
            case let .heartRate(r): heartRate.append(r)
            case let .rrIntervals(t, rr): rrIntervals += rr.map { RRInterval(time: t, milliseconds: $0) }
            }
        }
    }

    public init(config: EngineConfig = EngineConfig(), profile: ActivityProfile = Activity.run.profile,
                startAt: Double? = nil, course: FollowedCourse? = nil, workout: WorkoutPlan? = nil,
                terrain: (any TerrainModel)? = nil) {
        engine = SessionEngine(config: config, terrain: terrain)
        self.profile = profile
        self.startAt = startAt
        self.course = course
        self.workout = workout
    }

    /// The recorded track (one point per accepted fix while recording).
    public var track: [TrackPoint] { recorder.points }

    public var stepTimes: [Double] { recorder.stepTimes }
    public var events: [SessionEvent] { recorder.events }

    public mutating func feed(_ sample: IMUSample) {
        startIfNeeded(at: sample.t)
        withRecorder { engine, rec in engine.ingest(sample) { rec.record($0) } }
    }

    public mutating func feed(_ sample: BaroSample) {
        startIfNeeded(at: sample.t)
        withRecorder { engine, rec in engine.ingest(sample) { rec.record($0) } }
    }

    public mutating func feed(_ sample: HeartRateSample) {
        startIfNeeded(at: sample.t)
        withRecorder { engine, rec in engine.ingest(sample) { rec.record($0) } }
    }

    /// The lap command at `t` (a lap of the session; in a workout it ends the step).
    public mutating func lap(at t: Double) {
        startIfNeeded(at: t)
        withRecorder { engine, rec in try? engine.lap(at: t) { rec.record($0) } }
    }

    /// The heart-rate readings and RR intervals recorded while the session was open.
    public var heartRate: [HeartRatePoint] { recorder.heartRate }
    public var rrIntervals: [RRInterval] { recorder.rrIntervals }

    public mutating func feed(_ fix: GPSFix, at t: Double) {
        startIfNeeded(at: t)
        withRecorder { engine, rec in engine.ingest(fix, at: t) { rec.record($0) } }
        if course != nil, let nav = engine.navigator, let match = nav.lastMatch,
           match.time != courseTimeline.last?.time,
           let status = nav.courseStatus(averageSpeed: engine.stats.averageSpeed) {
            courseTimeline.append(CourseTimelineEntry(time: match.time, progress: status.progress, toGo: status.toGo,
                                                      distanceToCourse: match.distance, offCourse: match.offCourse,
                                                      eta: status.eta))
        }
    }

    /// Stops the session at `t` (the last input's time) and returns the summary;
    /// calories as a stored session's figures count them (track, pauses, `calories`).
    public mutating func finish(at t: Double, calories: CalorieModel = CalorieModel()) -> AnalysisSummary {
        if !started, let startAt, t >= startAt { startSession(at: startAt) }
        if started {
            withRecorder { engine, rec in try? engine.stop(at: t) { rec.record($0) } }
        }
        var summary = AnalysisSummary(stats: engine.stats, stepTimes: recorder.stepTimes, pauses: engine.pauses,
                                      events: recorder.events, rejectedSamples: engine.rejectedSamples,
                                      rejections: recorder.rejections, baro: engine.baroCounters)
        summary.caloriesKcal = calories.kcal(points: recorder.points, pauses: engine.pauses, activity: engine.stats.activity)
        let stats = engine.stats
        if stats.startTime.isFinite {
            let hr = HeartRateSummary(readings: recorder.heartRate, paused: PausedTime(engine.pauses), from: stats.startTime,
                                      to: stats.startTime + stats.elapsed, profile: engine.config.heartRate)
            summary.heartRate(hr)
            if hr.calorieMethod == .heartRate { summary.caloriesKcal = hr.heartRateKcal }
        }
        summary.hr = engine.heartRate.counters
        if course != nil { summary.courseTimeline = courseTimeline }
        if workout != nil {
            summary.workoutSteps = WorkoutStepSummary.steps(events: recorder.events, points: recorder.points,
                                                            heartRate: recorder.heartRate, pauses: engine.pauses, end: t)
        }
        return summary
    }

    private mutating func startIfNeeded(at t: Double) {
        guard !started else { return }
        if let startAt {
            guard t >= startAt else { return }
            startSession(at: startAt)
        } else {
            startSession(at: t)
        }
    }

    private mutating func startSession(at t: Double) {
        started = true
        let profile = self.profile, course = self.course, workout = self.workout
        withRecorder { engine, rec in
            try? engine.start(profile: profile, at: t, course: course, workout: workout) { rec.record($0) }
        }
    }

    /// Lends the engine and the recorder out as two separate variables (the
    /// engine's callback may not capture `self`); swapping keeps the arrays
    /// uniquely owned so appending never copies them.
    private mutating func withRecorder(_ body: (inout SessionEngine, inout Recorder) -> Void) {
        var rec = Recorder()
        swap(&rec, &recorder)
        body(&engine, &rec)
        swap(&rec, &recorder)
    }
}

/// What `moonrunner analyze --json` prints.
public struct AnalysisSummary: Sendable, Codable, Equatable {
    public var steps: Int
    public var stepTimes: [Double]
    public var cadence: Double
    public var distance: Double
    public var elapsed: Double
    public var moving: Double
    public var elevationGain: Double
    public var elevationLoss: Double
    public var maxSpeed: Double
    public var points: Int
    public var pauses: [PauseInterval]
    public var events: [SessionEvent]
    public var rejectedSamples: Int
    public var rejectedFixes: [String: Int]
    /// Where the session's altitude came from, and how much of the track each source gave.
    public var altitudeSource: AltitudeSource
    public var altitudeShares: AltitudeShares
    /// Barometer readings used and refused (all zero without a barometer trace).
    public var baro: BaroCounters
    /// Energy over the recorded track (ACSM equations with each stretch's grade).
    public var caloriesKcal: Double = 0
    /// With a course: where each accepted position was on it.
    public var courseTimeline: [CourseTimelineEntry]?
    /// With `--workout`: each step as run (`WorkoutStepSummary`).
    public var workoutSteps: [WorkoutStepSummary]?
    /// Heart rate over moving time (nil without one), seconds in zones 1–5, Banister's TRIMP.
    public var hrAverage: Double?
    public var hrMax: Double?
    public var hrZoneSeconds: [Double] = [0, 0, 0, 0, 0]
    public var trimp: Double = 0
    /// `heart_rate` (Keytel 2005) when heart rate covers 90 % of moving time, else `acsm`.
    public var caloriesMethod: CalorieMethod = .acsm
    /// Heart-rate readings and RR intervals taken, missing and refused.
    public var hr = HeartRateCounters()

    /// Takes the heart-rate figures in.
    public mutating func heartRate(_ s: HeartRateSummary) {
        hrAverage = s.averageBPM
        hrMax = s.maxBPM
        hrZoneSeconds = s.zoneSeconds
        trimp = s.trimp
        caloriesMethod = s.calorieMethod
    }

    public init(stats: SessionStats, stepTimes: [Double], pauses: [PauseInterval], events: [SessionEvent],
                rejectedSamples: Int, rejections: [FixRejection: Int], baro: BaroCounters = BaroCounters()) {
        steps = stats.steps
        self.stepTimes = stepTimes
        cadence = stats.averageCadence
        distance = stats.distance
        elapsed = stats.elapsed
        moving = stats.moving
        elevationGain = stats.elevationGain
        elevationLoss = stats.elevationLoss
        maxSpeed = stats.maxSpeed
        points = stats.points
        self.pauses = pauses
        self.events = events
        self.rejectedSamples = rejectedSamples
        rejectedFixes = Dictionary(uniqueKeysWithValues: rejections.map { ($0.key.rawValue, $0.value) })
        altitudeSource = stats.altitudeSource
        altitudeShares = stats.altitudeShares
        self.baro = baro
    }

    private enum CodingKeys: String, CodingKey {
        case steps, stepTimes = "step_times", cadence = "cadence_spm", distance = "distance_m",
             elapsed = "elapsed_s", moving = "moving_s", elevationGain = "elevation_gain_m",
             elevationLoss = "elevation_loss_m", maxSpeed = "max_speed_mps", points, pauses, events,
             rejectedSamples = "rejected_samples", rejectedFixes = "rejected_fixes",
             altitudeSource = "altitude_source", altitudeShares = "altitude_shares", baro, caloriesKcal = "calories_kcal",
             courseTimeline = "course_timeline", workoutSteps = "workout_steps", hrAverage = "hr_avg_bpm", hrMax = "hr_max_bpm",
             hrZoneSeconds = "hr_zone_s", trimp, caloriesMethod = "calories_method", hr
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(steps, forKey: .steps)
        try c.encode(stepTimes, forKey: .stepTimes)
        try c.encode(cadence, forKey: .cadence)
        try c.encode(distance, forKey: .distance)
        try c.encode(elapsed, forKey: .elapsed)
        try c.encode(moving, forKey: .moving)
        try c.encode(elevationGain, forKey: .elevationGain)
        try c.encode(elevationLoss, forKey: .elevationLoss)
        try c.encode(maxSpeed, forKey: .maxSpeed)
        try c.encode(points, forKey: .points)
        try c.encode(pauses, forKey: .pauses)
        try c.encode(events, forKey: .events)
        try c.encode(rejectedSamples, forKey: .rejectedSamples)
        try c.encode(rejectedFixes, forKey: .rejectedFixes)
        try c.encode(altitudeSource, forKey: .altitudeSource)
        try c.encode(altitudeShares, forKey: .altitudeShares)
        try c.encode(baro, forKey: .baro)
        try c.encode(caloriesKcal, forKey: .caloriesKcal)
        try c.encodeIfPresent(courseTimeline, forKey: .courseTimeline)
        try c.encodeIfPresent(workoutSteps, forKey: .workoutSteps)
        // Null, not absent, when there was no heart rate: the fields are always there.
        try c.encode(hrAverage, forKey: .hrAverage)
        try c.encode(hrMax, forKey: .hrMax)
        try c.encode(hrZoneSeconds, forKey: .hrZoneSeconds)
        try c.encode(trimp, forKey: .trimp)
        try c.encode(caloriesMethod, forKey: .caloriesMethod)
        try c.encode(hr, forKey: .hr)
    }
}
