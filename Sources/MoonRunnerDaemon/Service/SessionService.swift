import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore

/// Health of the input adapters, sampled for `STATUS`.
public struct InputHealth: Sendable {
    public var gps = GPSStatus(health: GPSHealth.connecting.rawValue, grade: SignalGrade.none.rawValue, fixes: 0, connects: 0)
    public var imu = IMUStatus(health: "lost", samples: 0, rejected: 0, busErrors: 0, overflows: 0)
    /// The barometer service's side (`none` without one); the fusion's counters are added in `STATUS`.
    public var baro = BaroStatus.none
    /// The heart-rate strap's side (`none` without one); the engine's counters are added in `STATUS`.
    public var hr = HeartRateStatus.none
    public var hrState = HeartRateLinkState.none
    public init() {}
}

/// Owns the session engine and the store writer: every input and every
/// command goes through this actor, one at a time, so the pure engine needs
/// no locks. Store writes are awaited, never blocking a thread, and the
/// actor keeps taking samples while a commit is in flight.
public actor SessionService {
    private var engine: SessionEngine
    private let store: SessionStore
    private let clock: EngineClock
    private let config: DaemonConfig
    private let logger: Logger

    private var sessionID: Int64?
    private var lastSessionID: Int64?
    private var starting = false
    private var pending: CommitBatch?
    private var lastCommit = -Double.infinity
    private var committing = false
    /// A forced commit asked for while one was in flight: it runs right after.
    private var commitAgain = false
    /// Commands waiting for the commits in flight to be written.
    private var settled: [CheckedContinuation<Void, Never>] = []
    private var storeHealthy = true
    private var storeError: String?
    private var lastTransition: TransitionInfo?
    private var stepSecond: StepSecondSample?
    private var transitionHappened = false
    /// Reused between calls so that the IMU path does not allocate per sample.
    private var outputs: [EngineOutput] = []

    private var watchers: [UInt64: @Sendable (String) -> Void] = [:]
    private var inputHealth = InputHealth()
    private var samplesSeen = 0
    /// Finished sessions, for the badge board.
    private var badgeSessions: [BadgeSessionSummary] = []
    /// The live distance up to which badges have been announced.
    private var badgeDistance = 0.0
    private let ladder = BadgeLadder.solarSystem
    private let calories: CalorieModel
    private var lastRetention = -Double.infinity
    private let hook: TransitionHook?
    /// The course library (its requests and uploads need no session state).
    public nonisolated let library: CourseLibrary
    /// Splits of the live session in the configured units, found point by
    /// point by the same tracker `show` runs over the stored track.
    private var splits: SplitTracker?
    private var gpsLoss = GPSLossWatch()
    private var heartRateLink = HeartRateLinkWatch()
    /// Announcers are asked to keep silent (`?ANNOUNCE`); not kept across restarts.
    private var quiet = false

    public init(config: DaemonConfig, store: SessionStore, clock: EngineClock, logger: Logger) {
        self.config = config
        self.store = store
        self.clock = clock
        self.logger = logger
        library = CourseLibrary(store: store, clock: clock, maxUploadBytes: config.courseMaxUploadKB * 1024)
        engine = SessionEngine(config: config.engineConfig)
        calories = CalorieModel(bodyMass: config.bodyMassKg)
        outputs.reserveCapacity(64)
        hook = config.hookCommand.isEmpty ? nil : TransitionHook(command: config.hookCommand, timeout: config.hookTimeout,
                                                                 logger: logger)
        // A database found damaged at start was kept aside: say so in STATUS.
        storeError = store.recoveredFromDamage.map { "\($0)" }
    }

    // MARK: Start-up

    /// Resumes a session a crash left open, or closes it when it is too old.
    public func recover() async {
        do {
            let open = try await store.openSessions()
            for s in open {
                let age = clock.now() - s.updatedAt
                if s.id == open.last?.id, age <= config.recoveryWindow {
                    sessionID = s.id
                    lastSessionID = s.id
                    pending = CommitBatch(sessionID: s.id, snapshot: s.snapshot)
                    let course = await followedCourse(of: s.snapshot)
                    collect { engine, emit in engine.restore(s.snapshot, course: course, at: clock.now(), emit: emit) }
                    engine.restoreHeartRate(try await store.heartRate(session: s.id))
                    splits = Self.splitTracker(units: config.units, start: s.startTime,
                                               replaying: try await store.points(session: s.id))
                    logger.notice("resumed session \(s.id) left open \(Int(age)) s ago")
                    await commit(force: true)
                } else {
                    try await store.closeInterrupted(id: s.id)
                    lastSessionID = s.id
                    logger.notice("closed interrupted session \(s.id) (left open \(Int(age)) s ago)")
                }
            }
            if lastSessionID == nil { lastSessionID = try await store.sessions(limit: 1).first?.id }
            badgeSessions = try await store.sessions(limit: 1_000_000).filter { $0.state == .stopped }.map(Self.badgeSummary)
            if sessionID != nil { badgeDistance = engine.stats.distance }
        } catch {
            markStoreError(error)
        }
        await applyRetention()
    }

    /// Deletes finished sessions older than `store.retention_days` (0 keeps all).
    public func applyRetention() async {
        lastRetention = clock.now()
        guard config.retentionDays > 0 else { return }
        let cutoff = clock.now() - Double(config.retentionDays) * 86_400
        do {
            let n = try await store.deleteSessions(endedBefore: cutoff)
            if n > 0 { logger.notice("retention: deleted \(n) session(s) older than \(config.retentionDays) days") }
        } catch {
            markStoreError(error)
        }
    }

    // MARK: Inputs

    public func ingest(samples: [IMUSample]) async {
        samplesSeen += samples.count
        collect { engine, emit in
            for s in samples { engine.ingest(s, emit: emit) }
        }
        await afterInput()
    }

    /// Barometer readings, in time order.
    public func ingest(baro samples: [BaroSample]) async {
        collect { engine, emit in
            for s in samples { engine.ingest(s, emit: emit) }
        }
        await afterInput()
    }

    /// A heart-rate reading (a strap's notification or a replayed row).
    public func ingest(heartRate sample: HeartRateSample) async {
        collect { engine, emit in engine.ingest(sample, emit: emit) }
        await afterInput()
    }

    /// The strap's link and health changed (its source's stream, in order):
    /// `hr_state` and `hr.health` come from this one snapshot, so they never
    /// disagree; a change of link is an `hr_connected` or `hr_lost` event
    /// (detail: the strap, or why).
    public func update(heartRate s: HeartRateSourceStatus, detail: String?) async {
        inputHealth.hr = HeartRateStatus(s)
        guard s.state != inputHealth.hrState else { return }
        inputHealth.hrState = s.state
        if let kind = heartRateLink.update(s.state) {
            record(SessionEvent(kind: kind, time: engine.now, detectedAt: engine.now, cause: "heart_rate",
                                state: engine.state, detail: detail))
            await afterInput()
        }
    }

    /// The source's counters (the daemon's 1 Hz tick); state and health stay
    /// as the stream last said, so the two can never be taken from different moments.
    public func refresh(heartRate s: HeartRateSourceStatus) {
        var hr = HeartRateStatus(s)
        hr.health = inputHealth.hr.health
        inputHealth.hr = hr
    }

    public func ingest(fix: GPSFix, at t: Double) async {
        // Counted here, as each fix arrives, so that STATUS is never behind
        // what the engine has seen.
        if fix.hasPosition && fix.time.isFinite { inputHealth.gps.fixes += 1 }
        collect { engine, emit in engine.ingest(fix, at: t, emit: emit) }
        await afterInput()
    }

    /// gpsd's connection health, sampled by the daemon's heartbeat.
    public func update(gpsHealth health: String, connects: Int) {
        inputHealth.gps.health = health
        inputHealth.gps.connects = connects
    }
    public func update(imu: IMUStatus) { inputHealth.imu = imu }
    public func update(baro: BaroStatus) { inputHealth.baro = baro }

    /// The 1 Hz heartbeat: time passes, watchers get `STATUS`, batches commit.
    public func tick() async {
        let now = clock.now()
        collect { engine, emit in engine.advance(to: now, emit: emit) }
        broadcast(ReplyEncoder.line(status(id: nil)))
        await afterInput()
        if now - lastRetention >= 3600 { await applyRetention() }
    }

    /// Commits what is pending (graceful shutdown).
    public func shutdown() async {
        await commit(force: true)
        await store.consolidate()
    }

    /// A short status for systemd's STATUS= (shown by `systemctl status`).
    public func oneLineStatus() -> String {
        let st = engine.stats
        guard engine.state != .idle else { return "idle; gps \(inputHealth.gps.health), imu \(inputHealth.imu.health)" }
        return "\(engine.state.rawValue) \(Formatting.distance(st.distance, config.units)) "
            + "\(Formatting.duration(st.moving)) \(st.steps) steps; gps \(inputHealth.gps.health), imu \(inputHealth.imu.health)"
    }

    // MARK: Commands

    public func handle(_ request: Request) async -> String {
        let id = request.id
        switch request.command {
        case .version:
            return ReplyEncoder.line(VersionReply(id: id))
        case .status:
            return ReplyEncoder.line(status(id: id))
        case .watch:
            return ReplyEncoder.line(status(id: id))
        case let .start(activityName, courseID, destination):
            let name = activityName ?? config.defaultActivity.rawValue
            guard let activity = Activity(rawValue: name) else {
                return error(.badParameter, "\"activity\" must be one of \(Activity.allCases.map(\.rawValue).joined(separator: ", "))", id)
            }
            var course: FollowedCourse?
            if let courseID {
                do throws(RequestError) {
                    course = try await library.load(id: courseID)
                } catch {
                    return self.error(error.code, error.message, id)
                }
            }
            return await start(activity, course: course, destination: destination, id: id)
        case .pause:
            return await command("pause", id) { e, t, emit throws(SessionCommandError) in try e.pause(at: t, emit: emit) }
        case .resume:
            return await command("resume", id) { e, t, emit throws(SessionCommandError) in try e.resume(at: t, emit: emit) }
        case .lap:
            return await command("lap", id) { e, t, emit throws(SessionCommandError) in try e.lap(at: t, emit: emit) }
        case .stop:
            return await command("stop", id) { e, t, emit throws(SessionCommandError) in try e.stop(at: t, emit: emit) }
        case let .sessions(limit, before):
            do {
                let list = try await store.sessions(limit: limit, before: before)
                return ReplyEncoder.line(SessionsReply(sessions: list.map(info), id: id))
            } catch {
                return storeFailure(error, id)
            }
        case let .session(sid):
            do {
                guard let s = try await store.session(id: sid) else {
                    return error(.notFound, "no session \(sid); ?SESSIONS; lists them", id)
                }
                let detail = try await exportSession(s)
                let events = detail.events.map { EventReply(session: sid, event: $0) }
                let live = snapshot(of: s)
                // Splits and laps walk the whole track: off the actor.
                let figures = await Task.detached { Self.figures(detail) }.value
                let course = live.navigation.flatMap { n in
                    n.courseName.map { SessionCourseReply(id: n.courseID, name: $0, finished: n.finished) }
                }
                return ReplyEncoder.line(SessionReply(session: info(s), stats: live.stats, pauses: live.pauses,
                                                      events: events, points: detail.points.count, figures: figures,
                                                      course: course, id: id))
            } catch {
                return storeFailure(error, id)
            }
        case let .delete(sid):
            guard sid != sessionID else {
                return error(.invalidState, "session \(sid) is being recorded; ?STOP; it first", id)
            }
            do {
                guard try await store.delete(id: sid) else { return error(.notFound, "no session \(sid)", id) }
                return ReplyEncoder.line(DeletedReply(session: sid, id: id))
            } catch {
                return storeFailure(error, id)
            }
        case .export:
            // The control server streams exports itself (see `exportSession(id:)`).
            return error(.unavailable, "?EXPORT; is answered by the control server", id)
        case .badges:
            let live = sessionID.map { (session: $0, distance: engine.stats.distance) }
            return ReplyEncoder.line(BadgesReply(board: BadgeBoard(ladder: ladder, sessions: badgeSessions), live: live, id: id))
        case .config:
            return ReplyEncoder.line(ConfigReply(config: ConfigSummary.json(config), id: id))
        case .courses, .course, .courseDelete:
            return await library.handle(request) ?? error(.internalError, "the course library did not answer", id)
        case .courseAdd, .courseData:
            // The control server receives uploads itself (they span several lines).
            return error(.unavailable, "?\(request.command.name); is answered by the control server", id)
        case let .announce(q):
            if q != quiet {
                quiet = q
                logger.notice("announcements \(q ? "muted" : "unmuted")")
                // Watchers learn it now rather than at the next tick.
                broadcast(ReplyEncoder.line(status(id: nil)))
            }
            return ReplyEncoder.line(status(id: id))
        }
    }

    // MARK: Watchers

    public func addWatcher(_ id: UInt64, sink: @escaping @Sendable (String) -> Void) {
        watchers[id] = sink
    }

    public func removeWatcher(_ id: UInt64) {
        watchers[id] = nil
    }

    // MARK: Internals

    private func start(_ activity: Activity, course: FollowedCourse?, destination: GeoPoint?, id: JSONValue?) async -> String {
        guard !engine.state.isActive, !starting else {
            return error(.invalidState, "a session is already \(engine.state.rawValue); ?STOP; it first", id)
        }
        starting = true
        defer { starting = false }
        let t = clock.now()
        var probe = engine
        do {
            try probe.start(activity: activity, at: t, course: course, destination: destination) { _ in }
        } catch {
            return self.error(.invalidState, error.description, id)
        }
        let newID: Int64
        do {
            newID = try await store.createSession(activity: activity, snapshot: probe.snapshot)
        } catch {
            return storeFailure(error, id)
        }
        sessionID = newID
        lastSessionID = newID
        pending = CommitBatch(sessionID: newID, snapshot: probe.snapshot)
        collect { engine, emit in
            try? engine.start(activity: activity, at: t, course: course, destination: destination, emit: emit)
        }
        await afterInput()
        await commitsSettled()
        return ReplyEncoder.line(status(id: id))
    }

    private func command(_ name: String, _ id: JSONValue?,
                         _ body: (inout SessionEngine, Double, (EngineOutput) -> Void) throws(SessionCommandError) -> Void) async -> String {
        let t = clock.now()
        var failure: SessionCommandError?
        var produced: [EngineOutput] = []
        do throws(SessionCommandError) {
            try body(&engine, t) { produced.append($0) }
        } catch {
            failure = error
        }
        for o in produced { handle(o) }
        if let failure {
            return error(.invalidState, "cannot \(name): the session is \(failure.state.rawValue)", id)
        }
        await afterInput()
        // The reply says it is done: it is on disk (a commit already in flight
        // when the command came would otherwise still be writing its batch).
        await commitsSettled()
        return ReplyEncoder.line(status(id: id))
    }

    /// Returns once no commit is in flight or queued.
    private func commitsSettled() async {
        guard committing || commitAgain else { return }
        await withCheckedContinuation { settled.append($0) }
    }

    /// Runs the engine with a buffer for its outputs, then handles them. The
    /// buffer is kept between calls, so a sample costs no allocation.
    private func collect(_ body: (inout SessionEngine, (EngineOutput) -> Void) -> Void) {
        var buffer = outputs
        outputs = []
        buffer.removeAll(keepingCapacity: true)
        body(&engine) { buffer.append($0) }
        for o in buffer { handle(o) }
        buffer.removeAll(keepingCapacity: true)
        outputs = buffer
    }

    private func handle(_ output: EngineOutput) {
        switch output {
        case let .step(t):
            let second = Int64(t.rounded(.down))
            if var s = stepSecond, s.second == second {
                s.steps += 1
                stepSecond = s
            } else {
                if let s = stepSecond { pending?.stepSeconds.append(s) }
                stepSecond = StepSecondSample(second: second, steps: 1, cadence: 0)
            }
            stepSecond?.cadence = engine.stats.cadence
        case let .point(p):
            pending?.points.append(p)
            if splits != nil {
                var found: [Split] = []
                splits?.add(p, paused: PausedTime(engine.pauses)) { found.append($0) }
                for split in found {
                    record(SessionEvent(kind: .split, time: split.endTime, detectedAt: engine.now, cause: "distance",
                                        state: engine.state, detail: String(split.number)), split: split)
                }
            }
        case let .rejected(reason, fix, t):
            if engine.state.isActive {
                pending?.rejected.append(RejectedFix(time: t, fix: fix, reason: reason))
            }
        case let .event(e):
            record(e)
        case let .heartRate(r):
            pending?.heartRate.append(r)
        case let .rrIntervals(t, rr):
            for ms in rr { pending?.rrIntervals.append(RRInterval(time: t, milliseconds: ms)) }
        }
    }

    /// Journals an event (on the engine clock) and tells watchers and the
    /// hook (in UTC).
    private func record(_ engineEvent: SessionEvent, split: Split? = nil) {
        // What leaves the daemon is in UTC (the store keeps the engine clock).
        let e = engineEvent.shifted(by: liveOffset)
        if e.kind.isTransition {
            lastTransition = TransitionInfo(event: e.kind.rawValue, time: e.time, cause: e.cause)
        }
        if e.kind == .start {
            badgeDistance = 0
            splits = SplitTracker(units: config.units, start: engine.stats.startTime)
        }
        if e.kind == .stop, let sid = sessionID {
            let st = engine.stats
            let finished = BadgeSessionSummary(id: sid, distance: st.distance, moving: st.moving,
                                               startTime: st.startTime + (liveOffset ?? 0))
            // Silver and gold need the whole session's average speed: told just before the stop.
            for (badge, tier) in BadgeBoard.upgrades(by: finished, after: badgeSessions, ladder: ladder) {
                record(SessionEvent(kind: .badge, time: engineEvent.time, detectedAt: engineEvent.detectedAt,
                                    cause: tier.rawValue, state: engineEvent.state, detail: badge.name))
            }
            badgeSessions.append(finished)
            splits = nil
        }
        pending?.events.append(engineEvent)
        transitionHappened = true
        let line = ReplyEncoder.line(EventReply(session: sessionID, event: e, split: split))
        broadcast(line)
        logger.info("\(e.kind.rawValue) at \(e.time) (\(e.cause)) → \(e.state.rawValue)")
        hook?.run(event: e, session: sessionID)
        if e.kind == .stop { pending?.endTime = engineEvent.time }
    }

    /// A tracker that has already seen a stored track (after a restart), so
    /// that the next split it finds is the next one of the session.
    private static func splitTracker(units: UnitSystem, start: Double, replaying points: [TrackPoint]) -> SplitTracker {
        var tracker = SplitTracker(units: units, start: start)
        let none = PausedTime([])
        for p in points { tracker.add(p, paused: none) { _ in } }
        return tracker
    }

    private func afterInput() async {
        announceBadges()
        if let kind = gpsLoss.update(hasFix: engine.hasGPS, sessionActive: engine.state.isActive) {
            record(SessionEvent(kind: kind, time: engine.now, detectedAt: engine.now, cause: "gps", state: engine.state))
        }
        if transitionHappened {
            transitionHappened = false
            await commit(force: true)
        } else if clock.now() - lastCommit >= config.commitInterval {
            await commit(force: false)
        }
    }

    /// Writes the pending batch. On failure the rows stay pending and are
    /// retried at the next commit, so a full disk loses nothing already
    /// recorded in memory and recording carries on.
    private func commit(force: Bool) async {
        if committing {
            if force { commitAgain = true }
            return
        }
        guard let sid = sessionID ?? pending?.sessionID, var batch = pending else { return }
        if let s = stepSecond {
            batch.stepSeconds.append(s)
            stepSecond = nil
        }
        batch.snapshot = engine.snapshot
        let ended = engine.state == .stopped
        pending = ended ? nil : CommitBatch(sessionID: sid, snapshot: batch.snapshot)
        if ended { sessionID = nil }
        committing = true
        lastCommit = clock.now()
        do {
            try await store.commit(batch)
            committing = false
            if !storeHealthy { logger.notice("store writable again; pending rows committed") }
            storeHealthy = true
            storeError = nil
        } catch {
            committing = false
            markStoreError(error)
            // Put the rows back in front of what arrived meanwhile.
            if var later = pending {
                batch.points += later.points
                batch.rejected += later.rejected
                batch.events += later.events
                batch.stepSeconds += later.stepSeconds
                batch.heartRate += later.heartRate
                batch.rrIntervals += later.rrIntervals
                batch.snapshot = later.snapshot
                batch.endTime = later.endTime ?? batch.endTime
                later = batch
                pending = later
            } else {
                pending = batch
                if ended { sessionID = sid }
            }
        }
        if commitAgain {
            commitAgain = false
            await commit(force: true)
        }
        if !committing && !commitAgain {
            let waiting = settled
            settled = []
            for w in waiting { w.resume() }
        }
    }

    /// An EVENT for every badge distance the live session has just passed.
    private func announceBadges() {
        guard engine.state.isActive else { return }
        let distance = engine.stats.distance
        guard distance > badgeDistance else { return }
        let passed = ladder.passed(from: badgeDistance, to: distance)
        guard !passed.isEmpty else {
            badgeDistance = distance
            return
        }
        // "earned" when no recorded session had passed it before: the first time is worth more.
        let firsts = BadgeBoard(ladder: ladder, sessions: badgeSessions).newlyEarned(from: badgeDistance, to: distance)
        badgeDistance = distance
        for badge in passed {
            record(SessionEvent(kind: .badge, time: engine.now, detectedAt: engine.now,
                                cause: firsts.contains(badge) ? "earned" : "distance", state: engine.state,
                                detail: badge.name))
        }
    }

    /// Everything stored about a session, in the form the exporters and the
    /// statistics take; the live session's figures come from the engine.
    public func exportSession(id sid: Int64) async throws(RequestError) -> ExportSession {
        let stored: StoredSession?
        do {
            stored = try await store.session(id: sid)
        } catch {
            markStoreError(error)
            throw RequestError(.storeError, "the store failed: \(error)")
        }
        guard let s = stored else { throw RequestError(.notFound, "no session \(sid); ?SESSIONS; lists them") }
        do {
            return try await exportSession(s)
        } catch {
            markStoreError(error)
            throw RequestError(.storeError, "the store failed: \(error)")
        }
    }

    /// The session as it leaves the daemon: every time in UTC.
    private func exportSession(_ s: StoredSession) async throws -> ExportSession {
        let live = snapshot(of: s)
        let offset = live.utcOffset
        let points = try await store.points(session: s.id).shifted(by: offset)
        let events = try await store.events(session: s.id).shifted(by: offset)
        let steps = try await store.stepSeconds(session: s.id).shifted(by: offset)
        let heartRate = try await store.heartRate(session: s.id).shifted(by: offset)
        let rr = try await store.rrIntervals(session: s.id).shifted(by: offset)
        return ExportSession(id: s.id, activity: s.activity, startTime: s.startTime + (offset ?? 0),
                             endTime: s.endTime.map { $0 + (offset ?? 0) },
                             stats: live.stats, points: points, events: events, pauses: live.pauses,
                             stepSeconds: steps, calorieModel: calories, course: live.navigation?.courseName,
                             heartRate: heartRate, rrIntervals: rr, heartRateProfile: config.engineConfig.heartRate)
    }

    /// A session's snapshot (the engine's for the live one) with its times in UTC.
    private func snapshot(of s: StoredSession) -> SessionSnapshot {
        let snap = s.id == sessionID ? engine.snapshot : s.snapshot
        return snap.shifted(by: snap.utcOffset)
    }

    /// UTC minus engine time for what happens now: the live session's offset,
    /// else the receiver's (nil before any fix: the system clock is all there is).
    private var liveOffset: Double? {
        (engine.state.isActive ? engine.snapshot.utcOffset : nil) ?? engine.receiverClock.offset
    }

    /// Splits per km and mile, laps, calories and best pace of a session.
    private static func figures(_ s: ExportSession) -> SessionFigures {
        let hr = s.heartRateSummary()
        return SessionFigures(caloriesKcal: s.calories,
                       splitsKm: Splits.compute(points: s.points, pauses: s.pauses, units: .metric,
                                                start: s.startTime, end: s.endTime),
                       splitsMi: Splits.compute(points: s.points, pauses: s.pauses, units: .imperial,
                                                start: s.startTime, end: s.endTime),
                       laps: s.laps, caloriesMethod: hr.calorieMethod,
                       heartRate: s.hasHeartRate ? HeartRateFigures(hr, rrIntervals: s.rrIntervals.count) : nil)
    }

    private static func badgeSummary(_ s: StoredSession) -> BadgeSessionSummary {
        BadgeSessionSummary(id: s.id, distance: s.snapshot.stats.distance, moving: s.snapshot.stats.moving,
                            startTime: s.startTime + (s.snapshot.utcOffset ?? 0))
    }

    private func markStoreError(_ error: any Error) {
        if storeHealthy { logger.error("store error: \(error)") }
        storeHealthy = false
        storeError = "\(error)"
    }

    private func broadcast(_ line: String) {
        for sink in watchers.values { sink(line) }
    }

    private var nextBadge: NextBadge? {
        guard engine.state.isActive else { return nil }
        let progress = ladder.progress(distance: engine.stats.distance)
        return progress.next.map { NextBadge(badge: $0, left: progress.distanceLeft) }
    }

    /// The course a snapshot followed, from the library; nil (following
    /// ends, logged) when it was deleted meanwhile.
    private func followedCourse(of snapshot: SessionSnapshot) async -> FollowedCourse? {
        guard let cid = snapshot.navigation?.courseID else { return nil }
        do throws(RequestError) {
            return try await library.load(id: cid)
        } catch {
            logger.warning("the resumed session followed course \(cid): \(error.message); it is no longer followed")
            return nil
        }
    }

    private func status(id: JSONValue?) -> StatusReply {
        var gps = inputHealth.gps
        gps.grade = engine.signal.rawValue
        var imu = inputHealth.imu
        imu.rejected += engine.rejectedSamples
        var baro = inputHealth.baro
        let fused = engine.baroCounters
        baro.samples = fused.samples
        baro.rejected = fused.rejected
        baro.levelShifts = fused.levelShifts
        let shown = engine.state == .idle ? nil : engine.stats.shifted(by: liveOffset)
        let heartRate = engine.heartRateSummary
        return StatusReply(time: clock.now() + (liveOffset ?? 0), state: engine.state.rawValue,
                           session: sessionID ?? (engine.state == .stopped ? lastSessionID : nil), stats: shown,
                           gps: gps, imu: imu, baro: baro, altitudeSource: engine.altitudeSource.rawValue,
                           store: storeStatus,
                           lastTransition: lastTransition, units: config.units.rawValue,
                           caloriesKcal: shown.map { liveCalories($0, heartRate: heartRate) } ?? 0,
                           nextBadge: nextBadge,
                           course: shown.flatMap { engine.navigator?.courseStatus(averageSpeed: $0.averageSpeed) }
                               .map(CourseStatusReply.init),
                           home: shown.flatMap { _ in engine.navigator?.toHome }.map(HomeReply.init),
                           destination: shown.flatMap { _ in engine.navigator?.destination }.map {
                               DestinationReply(point: $0, heading: engine.navigator?.toDestination,
                                                arrived: engine.navigator?.arrived ?? false)
                           },
                           quiet: quiet,
                           hrBpm: engine.currentHeartRate, hrZone: engine.heartRateZone,
                           hrState: inputHealth.hrState.rawValue, hr: heartRateStatus,
                           caloriesMethod: shown.map { _ in (heartRate?.calorieMethod ?? .acsm).rawValue },
                           id: id)
    }

    /// The session's calories so far by the stored session's rule: from heart
    /// rate (Keytel 2005) once it covers 90 % of the moving time, else ACSM
    /// from the totals.
    private func liveCalories(_ stats: SessionStats, heartRate: HeartRateSummary?) -> Double {
        if let heartRate, heartRate.calorieMethod == .heartRate { return heartRate.heartRateKcal }
        return calories.kcal(distance: stats.distance, moving: stats.moving, elevationGain: stats.elevationGain,
                             activity: stats.activity)
    }

    /// The strap's side with the engine's counts of what it took and refused.
    private var heartRateStatus: HeartRateStatus {
        var hr = inputHealth.hr
        let c = engine.heartRateCounters
        hr.samples = c.samples
        hr.missing = c.missing
        hr.rejected = c.rejected
        hr.rrIntervals = c.rrIntervals
        hr.rrRejected = c.rrRejected
        return hr
    }

    /// Commits that fail are held and retried; a journal the database cannot
    /// take in keeps every commit meanwhile: either is an error to look at.
    private var storeStatus: StoreStatus {
        let consolidation = store.consolidationError.map { "the database cannot take the journal in: \($0)" }
        return StoreStatus(health: storeHealthy && consolidation == nil ? "ok" : "error",
                           pending: pending?.rowCount ?? 0, lastError: storeError ?? consolidation)
    }

    private func info(_ s: StoredSession) -> SessionInfo {
        let snap = s.id == sessionID ? engine.snapshot : s.snapshot
        let offset = snap.utcOffset ?? 0
        return SessionInfo(id: s.id, activity: s.activity.rawValue, state: s.id == sessionID ? engine.state.rawValue : s.state.rawValue,
                           startTime: s.startTime + offset, endTime: s.endTime.map { $0 + offset }, distanceM: snap.stats.distance,
                           elapsedS: snap.stats.elapsed, movingS: snap.stats.moving, steps: snap.stats.steps,
                           interrupted: s.interrupted)
    }

    private func error(_ code: RequestError.Code, _ message: String, _ id: JSONValue?) -> String {
        ReplyEncoder.line(ErrorReply(RequestError(code, message, id: id)))
    }

    private func storeFailure(_ e: any Error, _ id: JSONValue?) -> String {
        markStoreError(e)
        return error(.storeError, "the store failed: \(e); check free space and permissions of \(config.stateDir)", id)
    }
}

extension HeartRateStatus {
    /// The source's side of `STATUS.hr` (the engine's counts are added by the service).
    init(_ s: HeartRateSourceStatus) {
        self.init(health: s.health, device: s.device, notifications: s.notifications, malformed: s.malformed,
                  connects: s.connects, lastError: s.lastError)
    }
}
