/// One step of a workout as it was run, from the session's record (its
/// `workout_step` events, track and heart rate): when it began and ended,
/// the distance and moving time in it, the average pace and heart rate, and
/// the seconds its measure spent inside the target. What `analyze
/// --workout` prints per step, and what the session page will show.
public struct WorkoutStepSummary: Sendable, Equatable, Codable {
    public var step: PlannedStep
    public var start: Double
    public var end: Double
    /// False for the step the session stopped in (it never reached its end).
    public var completed: Bool
    /// Metres of the session's distance, seconds of moving time, in the step.
    public var distance: Double
    public var moving: Double
    /// m/s over the moving time; nil without moving time.
    public var averageSpeed: Double?
    public var averageHeartRate: Double?
    /// Seconds the measure was inside the band (the points' speed, the
    /// heart-rate readings), gaps longer than `maxGap` left out; nil without a target.
    public var timeInTarget: Double?

    /// Longest gap between two samples that still counts as one, s.
    static let maxGap = 5.0

    /// The steps of `events` (a session's, in time order), each to the next
    /// step's start, the `workout_done`, or `end` for one the session stopped in.
    public static func steps(events: [SessionEvent], points: [TrackPoint], heartRate: [HeartRatePoint],
                             pauses: [PauseInterval], end: Double) -> [WorkoutStepSummary] {
        let starts = events.filter { $0.kind == .workoutStep }
        let done = events.first { $0.kind == .workoutDone }?.time
        let paused = PausedTime(pauses)
        return starts.enumerated().compactMap { k, e in
            guard let step = e.workout?.step else { return nil }
            let next = k + 1 < starts.count ? starts[k + 1].time : done
            let stop = next ?? end
            let moving = max(0, stop - e.time - paused.paused(from: e.time, to: stop))
            let distance = max(0, distanceAt(stop, points) - distanceAt(e.time, points))
            let beats = heartRate.filter { $0.time >= e.time && $0.time < stop && $0.bpm.isFinite }
            return WorkoutStepSummary(
                step: step, start: e.time, end: stop, completed: next != nil, distance: distance, moving: moving,
                averageSpeed: moving > 0 ? distance / moving : nil,
                averageHeartRate: beats.isEmpty ? nil : beats.reduce(0) { $0 + $1.bpm } / Double(beats.count),
                timeInTarget: step.target.map { inBand($0, from: e.time, to: stop, points: points, beats: beats) })
        }
    }

    /// The session's distance at `t`, between the points around it.
    static func distanceAt(_ t: Double, _ points: [TrackPoint]) -> Double {
        guard let after = points.firstIndex(where: { $0.time >= t }) else { return points.last?.distance ?? 0 }
        guard after > 0 else { return 0 }
        let a = points[after - 1], b = points[after]
        guard b.time > a.time else { return b.distance }
        return a.distance + (b.distance - a.distance) * (t - a.time) / (b.time - a.time)
    }

    /// Seconds of `[from, to]` whose measure lay inside the band.
    static func inBand(_ band: TargetBand, from: Double, to: Double, points: [TrackPoint],
                       beats: [HeartRatePoint]) -> Double {
        let samples: [(t: Double, v: Double)] = switch band.measure {
        case .pace: points.filter { $0.time >= from && $0.time < to }.map { ($0.time, $0.speed) }
        case .hr: beats.map { ($0.time, $0.bpm) }
        case .cadence: []
        }
        var total = 0.0
        for (a, b) in zip(samples, samples.dropFirst()) where b.t - a.t <= maxGap {
            if a.v >= band.low && a.v <= band.high { total += b.t - a.t }
        }
        return total
    }

    private enum CodingKeys: String, CodingKey {
        case step, start, end, completed, distance = "distance_m", moving = "moving_s",
             averageSpeed = "avg_speed_mps", averageHeartRate = "avg_hr_bpm", timeInTarget = "time_in_target_s"
    }
}
