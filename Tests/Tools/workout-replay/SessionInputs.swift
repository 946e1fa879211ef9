import MoonRunnerCore
import MoonRunnerSensors

/// The engine run once over a recording: what it would tell the workout
/// runner at the session's start, after every fix and heart-rate reading
/// while the session is open, and at each lap command.
enum SessionInputs {
    struct Entry {
        enum Kind { case start, update, lap }
        var kind: Kind
        var input: WorkoutInput
    }

    static func record(config: EngineConfig, activity: Activity, fixes: [GPSTraceReader.Entry],
                       beats: [HeartRateSample], start: Double?, laps: [Double]) throws -> [Entry] {
        var engine = SessionEngine(config: config)
        var out: [Entry] = []
        // A strap's trace on the watch's clock lies whole GPS week roll-overs from a log gpsd moved forward.
        let shift = beats.first.flatMap { b in fixes.first.map { WeekRollover.alignment(traceStart: b.t, receiverTime: $0.at) } } ?? 0
        let beats = beats.map { b in
            var moved = b
            moved.t += shift
            return moved
        }
        let begin = start ?? fixes.first?.at ?? 0
        var started = false
        var (f, b, l) = (0, 0, 0)
        let pendingLaps = laps.sorted()
        func openIfDue(_ t: Double) throws {
            guard !started, t >= begin else { return }
            try engine.start(activity: activity, at: begin) { _ in }
            started = true
            out.append(Entry(kind: .start, input: input(engine, at: begin)))
        }
        while f < fixes.count || b < beats.count {
            let tf = f < fixes.count ? fixes[f].at : .infinity, tb = b < beats.count ? beats[b].t : .infinity
            let t = min(tf, tb)
            try openIfDue(t)
            while started, l < pendingLaps.count, pendingLaps[l] <= t {
                try engine.lap(at: pendingLaps[l]) { _ in }
                out.append(Entry(kind: .lap, input: input(engine, at: pendingLaps[l])))
                l += 1
            }
            if tb < tf {
                engine.ingest(beats[b]) { _ in }
                b += 1
            } else {
                engine.ingest(fixes[f].fix, at: tf) { _ in }
                f += 1
            }
            if started { out.append(Entry(kind: .update, input: input(engine, at: t))) }
        }
        return out
    }

    /// What the engine knows at `t`, as the runner takes it.
    static func input(_ e: SessionEngine, at t: Double) -> WorkoutInput {
        let motion: WorkoutMotion = switch e.state {
        case .autoPaused: .autoPaused
        case .paused: .paused
        default: .moving
        }
        return WorkoutInput(time: t, moving: e.stats.moving, distance: e.stats.distance,
                            speed: e.hasGPS ? e.stats.speed : .nan, heartRate: e.heartRate.current(at: e.now) ?? .nan,
                            cadence: e.hasIMU ? e.stats.cadence : .nan, motion: motion)
    }
}
