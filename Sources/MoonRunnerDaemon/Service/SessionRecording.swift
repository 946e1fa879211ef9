import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerStore

/// What the engine produces during a session, gathered for the store and for
/// those who listen: rows go into the batch of the next commit (steps counted
/// per second), splits and badges are found as points and distance come in,
/// and every event is journaled on the engine clock and handed back in UTC to
/// be told (watchers, the hook, the log). A pure value: the session service
/// feeds it, tells what it hands back and writes what it gathered.
struct SessionRecording: Sendable {
    /// An event to tell, in UTC, with the split it closes.
    struct Told: Sendable {
        var event: SessionEvent
        var split: Split?
    }

    /// Rows since the last commit; nil outside a session.
    var pending: CommitBatch?
    /// The second whose steps are still being counted (a commit takes it).
    var steps = StepSecondTally()
    var splits: LiveSplits
    /// The badges the live session passes, and the finished sessions' board.
    var badges = BadgeWatch()
    private(set) var lastTransition: TransitionInfo?
    /// An event was journaled since the last commit, which is then forced.
    var eventJournaled = false

    init(units: UnitSystem) {
        splits = LiveSplits(units: units)
    }

    /// Takes one output of `engine` (already applied to it) during `session`.
    mutating func take(_ output: EngineOutput, from engine: SessionEngine, session: Int64?) -> [Told] {
        switch output {
        case let .step(t):
            if let closed = steps.step(at: t, cadence: engine.stats.cadence) { pending?.stepSeconds.append(closed) }
        case let .point(p):
            pending?.points.append(p)
            var told: [Told] = []
            for split in splits.add(p, pauses: engine.pauses) {
                told += record(SessionEvent(kind: .split, time: split.endTime, detectedAt: engine.now, cause: "distance",
                                            state: engine.state, detail: String(split.number)),
                               from: engine, session: session, split: split)
            }
            return told
        case let .rejected(reason, fix, t):
            if engine.state.isActive {
                pending?.rejected.append(RejectedFix(time: t, fix: fix, reason: reason))
            }
        case let .event(e):
            return record(e, from: engine, session: session)
        case let .heartRate(r):
            pending?.heartRate.append(r)
        case let .rrIntervals(t, rr):
            for ms in rr { pending?.rrIntervals.append(RRInterval(time: t, milliseconds: ms)) }
        }
        return []
    }

    /// The batch for a commit: the rows gathered, the open step second and the
    /// engine's `snapshot`. What comes after goes into a fresh batch, unless the
    /// session ended with this one. Nil when nothing is being gathered.
    mutating func takeBatch(session sid: Int64, snapshot: SessionSnapshot, ended: Bool) -> CommitBatch? {
        guard var batch = pending else { return nil }
        if let s = steps.take() { batch.stepSeconds.append(s) }
        batch.snapshot = snapshot
        pending = ended ? nil : CommitBatch(sessionID: sid, snapshot: snapshot)
        return batch
    }

    /// A commit failed: its rows go back in front of what came since, so the
    /// next commit retries them. True when nothing had come since (the session
    /// had ended with that batch, which is pending again as it was).
    mutating func putBack(_ failed: CommitBatch) -> Bool {
        guard pending != nil else {
            pending = failed
            return true
        }
        pending?.putBack(failed)
        return false
    }

    /// Journals an event (on the engine clock) and hands it back to be told
    /// (in UTC), after the badge upgrades a stop brings.
    mutating func record(_ engineEvent: SessionEvent, from engine: SessionEngine, session: Int64?,
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
        if e.kind == .stop, let sid = session {
            let st = engine.stats
            let finished = BadgeSessionSummary(id: sid, distance: st.distance, moving: st.moving,
                                               startTime: st.startTime + (engine.utcOffsetNow ?? 0), activity: st.activity)
            // Silver and gold need the whole session's average speed: told just before the stop.
            for (badge, tier) in badges.finish(finished) {
                told += record(SessionEvent(kind: .badge, time: engineEvent.time, detectedAt: engineEvent.detectedAt,
                                            cause: tier.rawValue, state: engineEvent.state, detail: badge.name),
                               from: engine, session: session)
            }
            splits.stop()
        }
        pending?.events.append(engineEvent)
        eventJournaled = true
        told.append(Told(event: e, split: split))
        if e.kind == .stop { pending?.endTime = engineEvent.time }
        return told
    }
}
