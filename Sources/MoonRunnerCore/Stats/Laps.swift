/// Why a lap ended.
public enum LapTrigger: String, Sendable, Codable, CaseIterable {
    /// The wearer pressed lap.
    case manual
    /// The session ended.
    case sessionEnd = "session_end"
    /// A planned workout's step ended (its time, distance or heart rate; the
    /// lap command in a workout is `manual`).
    case workoutStep = "workout_step"
}

/// One lap of a session: from the start (or the previous lap press) to the
/// next lap press (or the end).
public struct LapSummary: Sendable, Equatable, Codable {
    /// 1-based.
    public var number: Int
    public var startTime: Double
    public var endTime: Double
    /// Seconds, pauses included.
    public var elapsed: Double
    /// Seconds outside pauses.
    public var moving: Double
    /// Metres along the track inside the lap (interpolated at its ends).
    public var distance: Double
    /// Fastest filtered point speed in the lap, m/s.
    public var maxSpeed: Double
    public var steps: Int
    /// Indices of the track points that fall in the lap.
    public var points: Range<Int>
    public var trigger: LapTrigger
    /// The workout's step run in the lap (nil outside a workout): its
    /// `wktStepIndex` and intensity go into the FIT and TCX laps.
    public var step: PlannedStep?

    /// Average speed over moving time, m/s.
    public var averageSpeed: Double { moving > 0 ? distance / moving : 0 }
    /// Steps per minute over moving time.
    public var averageCadence: Double { moving > 0 ? Double(steps) / moving * 60 : 0 }
}

/// Laps from a session's lap events and its track.
public enum Laps {
    /// Seconds the last lap lasts at least.
    static let minLast = 1.0

    /// The laps of a session that ran from `start` to `end` (engine clock).
    ///
    /// Lap boundaries are the `lap` events strictly inside (start, end) and,
    /// in a workout, each step's start and the workout's end, so that each
    /// step is a lap, as a watch records one; there is always at least one
    /// lap. A boundary less than `minLast` before the end makes no lap of its
    /// own: the stop pressed as the workout ended is no 0-second lap. A point belongs to the lap whose
    /// interval `[start, end)` holds its time (the last lap also takes the
    /// end instant). Steps are given per whole second: a second counts in
    /// the lap holding its middle, so that lap steps add up to the total.
    public static func compute(points: [TrackPoint], events: [SessionEvent], pauses: [PauseInterval],
                               stepSeconds: [StepSecondSample], start: Double, end: Double) -> [LapSummary] {
        let finish = max(start, end)
        var bounds = [start]
        var ends: [LapTrigger] = []
        let marks: Set<SessionEventKind> = [.lap, .workoutStep, .workoutDone]
        for e in events.sorted(by: { $0.time < $1.time }) where marks.contains(e.kind) {
            let trigger: LapTrigger = e.kind == .lap || e.cause == "lap" ? .manual : .workoutStep
            if e.time > start && e.time < finish - minLast && e.time > (bounds.last ?? start) {
                bounds.append(e.time)
                ends.append(trigger)
            } else if e.time == bounds.last, trigger == .manual, !ends.isEmpty {
                ends[ends.count - 1] = .manual
            }
        }
        bounds.append(finish)
        ends.append(.sessionEnd)
        let steps = WorkoutSteps(events)

        let track = TrackDistance(points: points)
        let paused = PausedTime(pauses)
        let lapCount = bounds.count - 1
        var counted = [Int](repeating: 0, count: lapCount)
        var lap = 0
        for s in stepSeconds.sorted(by: { $0.second < $1.second }) {
            let middle = Double(s.second) + 0.5
            while lap + 1 < lapCount && middle >= bounds[lap + 1] { lap += 1 }
            counted[lap] += s.steps
        }

        var laps: [LapSummary] = []
        laps.reserveCapacity(lapCount)
        var index = 0
        for k in 0..<lapCount {
            let t0 = bounds[k], t1 = bounds[k + 1]
            let isLast = k == lapCount - 1
            let first = index
            var fastest = 0.0
            while index < points.count && (points[index].time < t1 || isLast) {
                if points[index].speed.isFinite { fastest = max(fastest, points[index].speed) }
                index += 1
            }
            laps.append(LapSummary(number: k + 1, startTime: t0, endTime: t1, elapsed: t1 - t0,
                                   moving: paused.moving(from: t0, to: t1),
                                   distance: max(0, track.distance(at: t1) - track.distance(at: t0)),
                                   maxSpeed: fastest, steps: counted[k], points: first..<index,
                                   trigger: ends[k], step: steps.step(at: t0)))
        }
        return laps
    }
}

/// The steps of a workout by the time they began, from a session's events:
/// which step a lap beginning at `t` ran (nil before the first and after
/// `workout_done`).
struct WorkoutSteps {
    private var starts: [(time: Double, step: PlannedStep)] = []
    private var done = Double.infinity

    init(_ events: [SessionEvent]) {
        for e in events.sorted(by: { $0.time < $1.time }) {
            if e.kind == .workoutStep, let step = e.workout?.step { starts.append((e.time, step)) }
            if e.kind == .workoutDone { done = min(done, e.time) }
        }
    }

    func step(at t: Double) -> PlannedStep? {
        guard t < done else { return nil }
        return starts.last { $0.time <= t }?.step
    }
}
