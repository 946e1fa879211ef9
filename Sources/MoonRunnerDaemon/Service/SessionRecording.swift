import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerStore

/// What the engine produces during a session, gathered for the store and for
/// those who listen: rows go into the batch of the next commit (steps counted
/// per second), splits and badges are found as points and distance come in,
/// and every event is journaled on the engine clock and handed back in UTC to
/// be told (watchers, the hook, the log). A pure value: the session service
/// feeds it the batch its `CommitScheduler` gathers, and tells what it hands back.
struct SessionRecording: Sendable {
    /// An event to tell, in UTC, with the split it closes.
    struct Told: Sendable {
        var event: SessionEvent
        var split: Split?
    }

    /// The second whose steps are still being counted (a commit takes it).
    var steps = StepSecondTally()
    var splits: LiveSplits
    /// The badges the live session passes, and the finished sessions' board.
    var badges = BadgeWatch()
    private(set) var lastTransition: TransitionInfo?
    /// An event was journaled since the last commit, which is then forced.
    var eventJournaled = false
    private var gpsLoss = GPSLossWatch()

    init(units: UnitSystem) {
        splits = LiveSplits(units: units)
    }

    /// Takes one output of `engine` (already applied to it) into `batch`, the
    /// rows of the session being recorded (nil outside one).
    mutating func take(_ output: EngineOutput, from engine: SessionEngine, into batch: inout CommitBatch?) -> [Told] {
        switch output {
        case let .step(t):
            if let closed = steps.step(at: t, cadence: engine.stats.cadence) { batch?.stepSeconds.append(closed) }
        case let .point(p):
            batch?.points.append(p)
            var told: [Told] = []
            for split in splits.add(p, pauses: engine.pauses) {
                told += record(SessionEvent(kind: .split, time: split.endTime, detectedAt: engine.now, cause: "distance",
                                            state: engine.state, detail: String(split.number)),
                               from: engine, into: &batch, split: split)
            }
            return told
        case let .rejected(reason, fix, t):
            if engine.state.isActive {
                batch?.rejected.append(RejectedFix(time: t, fix: fix, reason: reason))
            }
        case let .event(e):
            return record(e, from: engine, into: &batch)
        case let .heartRate(r):
            batch?.heartRate.append(r)
        case let .rrIntervals(t, rr):
            for ms in rr { batch?.rrIntervals.append(RRInterval(time: t, milliseconds: ms)) }
        }
        return []
    }

    /// The moments the inputs so far bring: badge distances passed, the GPS
    /// lost or regained. Asked after every input: `engine` is read in place.
    mutating func look(at engine: SessionEngine, into batch: inout CommitBatch?) -> [Told] {
        var told: [Told] = []
        for passing in badges.update(distance: engine.stats.distance, sessionActive: engine.state.isActive) {
            told += record(SessionEvent(kind: .badge, time: engine.now, detectedAt: engine.now, cause: passing.cause,
                                        state: engine.state, detail: passing.badge.name),
                           from: engine, into: &batch)
        }
        if let kind = gpsLoss.update(hasFix: engine.hasGPS, sessionActive: engine.state.isActive) {
            told += record(SessionEvent(kind: kind, time: engine.now, detectedAt: engine.now, cause: "gps",
                                        state: engine.state),
                           from: engine, into: &batch)
        }
        return told
    }

    /// Journals an event (on the engine clock) and hands it back to be told
    /// (in UTC), after the badge upgrades a stop brings.
    mutating func record(_ engineEvent: SessionEvent, from engine: SessionEngine, into batch: inout CommitBatch?,
                         split: Split? = nil) -> [Told] {
        // What leaves the daemon is in UTC (the store keeps the engine clock).
        let e = engineEvent.shifted(by: engine.utcOffsetNow)
        if e.kind.isTransition {
            lastTransition = TransitionInfo(event: e.kind.rawValue, time: e.time, cause: e.cause)
        }
        if e.kind == .start {
            badges.start(engine.stats.activity)
            splits.start(at: engine.stats.startTime, unitsPerSplit: engine.profile.splitUnits)
        }
        var told: [Told] = []
        if e.kind == .stop, let sid = batch?.sessionID {
            let st = engine.stats
            let finished = BadgeSessionSummary(id: sid, distance: st.distance, moving: st.moving,
                                               startTime: st.startTime + (engine.utcOffsetNow ?? 0), activity: st.activity)
            // Silver and gold need the whole session's average speed: told just before the stop.
            for (badge, tier) in badges.finish(finished) {
                told += record(SessionEvent(kind: .badge, time: engineEvent.time, detectedAt: engineEvent.detectedAt,
                                            cause: tier.rawValue, state: engineEvent.state, detail: badge.name),
                               from: engine, into: &batch)
            }
            splits.stop()
        }
        batch?.events.append(engineEvent)
        eventJournaled = true
        told.append(Told(event: e, split: split))
        if e.kind == .stop { batch?.endTime = engineEvent.time }
        return told
    }
}
