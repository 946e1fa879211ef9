import Logging
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore
import MoonRunnerTerrain

/// The serialiser: every input and every command goes through this actor,
/// one at a time, so the pure values it holds need no locks: the engine, what
/// the session records (`SessionRecording`), `STATUS` (`LiveStatus`), stored
/// sessions as they leave (`SessionArchive`). It does the I/O they decide:
/// store writes are awaited, never blocking a thread, and the actor keeps
/// taking samples while a commit is in flight.
public actor SessionService {
    private var engine: SessionEngine
    private let store: SessionStore
    private let clock: EngineClock
    private let config: DaemonConfig
    private let logger: Logger

    private var sessionID: Int64?
    private var lastSessionID: Int64?
    private var starting = false
    /// Rows for the next commit, events, splits and badges of the live session.
    private var recording: SessionRecording
    private var lastCommit = -Double.infinity
    private var committing = false
    /// A forced commit asked for while one was in flight: it runs right after.
    private var commitAgain = false
    /// Commands waiting for the commits in flight to be written.
    private var settled: [CheckedContinuation<Void, Never>] = []
    private var storeHealthy = true
    private var storeError: String?
    /// Reused between calls so that the IMU path does not allocate per sample.
    private var outputs: [EngineOutput] = []

    private var watchers: [UInt64: @Sendable (String) -> Void] = [:]
    private var inputHealth = InputHealth()
    /// Stored sessions as they leave the daemon.
    private let archive: SessionArchive
    private var lastRetention = -Double.infinity
    private let hook: TransitionHook?
    /// The course library (its requests and uploads need no session state).
    public nonisolated let library: CourseLibrary
    private let recovery: SessionRecovery
    private var gpsLoss = GPSLossWatch()
    private var heartRateLink = HeartRateLinkWatch()
    /// Announcers are asked to keep silent (`?ANNOUNCE`); not kept across restarts.
    private var quiet = false
    private let terrain: TerrainFolder?

    public init(config: DaemonConfig, store: SessionStore, clock: EngineClock, logger: Logger) {
        self.config = config
        self.store = store
        self.clock = clock
        self.logger = logger
        library = CourseLibrary(store: store, clock: clock, maxUploadBytes: config.courseMaxUploadKB * 1024)
        terrain = TerrainTiles.open(config, logger: logger)
        engine = SessionEngine(config: config.engineConfig, terrain: terrain)
        archive = SessionArchive(store: store, calories: CalorieModel(bodyMass: config.bodyMassKg),
                                 heartRateProfile: config.engineConfig.heartRate)
        recording = SessionRecording(units: config.units)
        recovery = SessionRecovery(store: store, library: library, logger: logger)
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
                    try await resume(s, age: age)
                } else {
                    try await recovery.close(s, age: age)
                    lastSessionID = s.id
                }
            }
            if lastSessionID == nil { lastSessionID = try await store.sessions(limit: 1).first?.id }
            recording.badges.sessions = try await recovery.badgeSessions()
            // Idle, the board is the last session's activity (newest first), as it was before the restart.
            let idle = recording.badges.sessions.first?.activity ?? config.defaultActivity
            recording.badges.start(sessionID != nil ? engine.stats.activity : idle,
                                   at: sessionID != nil ? engine.stats.distance : 0)
        } catch {
            markStoreError(error)
        }
        await applyRetention()
    }

    /// Carries on session `s`, last committed `age` seconds ago.
    private func resume(_ s: StoredSession, age: Double) async throws {
        sessionID = s.id
        lastSessionID = s.id
        recording.pending = CommitBatch(sessionID: s.id, snapshot: s.snapshot)
        let course = await recovery.followedCourse(of: s.snapshot)
        collect { engine, emit in engine.restore(s.snapshot, course: course, at: clock.now(), emit: emit) }
        engine.restoreHeartRate(try await store.heartRate(session: s.id))
        recording.splits.resume(start: s.startTime, unitsPerSplit: engine.profile.splitUnits,
                                replaying: try await store.points(session: s.id))
        logger.notice("resumed session \(s.id) left open \(Int(age)) s ago")
        await commit(force: true)
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
    public func oneLineStatus() -> String { liveStatus.oneLine }

    // MARK: Commands

    /// Each request is one method of the service (or the course library's);
    /// the control server answers `?EXPORT`, `?COURSE_ADD` and `?COURSE_DATA` itself.
    public func handle(_ request: Request) async -> String {
        let id = request.id
        switch request.command {
        case .version: return ReplyEncoder.line(VersionReply(id: id))
        case .status, .watch: return ReplyEncoder.line(status(id: id))
        case let .start(activity, course, destination): return await start(activity, courseID: course, destination: destination, id: id)
        case .pause: return await command("pause", id) { e, t, emit throws(SessionCommandError) in try e.pause(at: t, emit: emit) }
        case .resume: return await command("resume", id) { e, t, emit throws(SessionCommandError) in try e.resume(at: t, emit: emit) }
        case .lap: return await command("lap", id) { e, t, emit throws(SessionCommandError) in try e.lap(at: t, emit: emit) }
        case .stop: return await command("stop", id) { e, t, emit throws(SessionCommandError) in try e.stop(at: t, emit: emit) }
        case let .sessions(limit, before): return await sessions(limit: limit, before: before, id: id)
        case let .session(sid): return await session(sid, id: id)
        case let .delete(sid): return await delete(sid, id: id)
        case .export: return error(.unavailable, "?EXPORT; is answered by the control server", id)
        case .badges: return badgeBoard(id: id)
        case .config: return ReplyEncoder.line(ConfigReply(config: ConfigSummary.json(config), id: id))
        case .courses, .course, .courseDelete: return await library.handle(request) ?? error(.internalError, "the course library did not answer", id)
        case .courseAdd, .courseData: return error(.unavailable, "?\(request.command.name); is answered by the control server", id)
        case let .announce(q): return announce(quiet: q, id: id)
        }
    }

    /// `?START`: the activity by name (the configured one when none), the course by id.
    private func start(_ activityName: String?, courseID: Int64?, destination: GeoPoint?, id: JSONValue?) async -> String {
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
    }

    private func sessions(limit: Int, before: Int64?, id: JSONValue?) async -> String {
        do {
            return ReplyEncoder.line(try await archive.sessions(limit: limit, before: before, live: live, id: id))
        } catch {
            return storeFailure(error, id)
        }
    }

    private func session(_ sid: Int64, id: JSONValue?) async -> String {
        do {
            guard let reply = try await archive.session(sid, live: live, id: id) else {
                return error(.notFound, "no session \(sid); ?SESSIONS; lists them", id)
            }
            return ReplyEncoder.line(reply)
        } catch {
            return storeFailure(error, id)
        }
    }

    private func delete(_ sid: Int64, id: JSONValue?) async -> String {
        guard sid != sessionID else {
            return error(.invalidState, "session \(sid) is being recorded; ?STOP; it first", id)
        }
        do {
            guard try await store.delete(id: sid) else { return error(.notFound, "no session \(sid)", id) }
            return ReplyEncoder.line(DeletedReply(session: sid, id: id))
        } catch {
            return storeFailure(error, id)
        }
    }

    private func badgeBoard(id: JSONValue?) -> String {
        let live = sessionID.map { (session: $0, distance: engine.stats.distance) }
        return ReplyEncoder.line(BadgesReply(activity: recording.badges.activity, board: recording.badges.board,
                                             live: live, id: id))
    }

    /// `?ANNOUNCE`: watchers learn a change now rather than at the next tick.
    private func announce(quiet q: Bool, id: JSONValue?) -> String {
        if q != quiet {
            quiet = q
            logger.notice("announcements \(q ? "muted" : "unmuted")")
            broadcast(ReplyEncoder.line(status(id: nil)))
        }
        return ReplyEncoder.line(status(id: id))
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
        if let refusal = StartRefusal(asked: activity, current: engine.stats.activity, state: engine.state,
                                      starting: starting) {
            return error(.invalidState, refusal.message, id)
        }
        starting = true
        defer { starting = false }
        TerrainTiles.reload(terrain, logger: logger)
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
        recording.pending = CommitBatch(sessionID: newID, snapshot: probe.snapshot)
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
        tell(recording.take(output, from: engine, session: sessionID))
    }

    private func record(_ event: SessionEvent) {
        tell(recording.record(event, from: engine, session: sessionID))
    }

    /// Tells watchers, the hook and the log what was journaled (in UTC).
    private func tell(_ told: [SessionRecording.Told]) {
        for t in told {
            let e = t.event
            broadcast(ReplyEncoder.line(EventReply(session: sessionID, event: e, split: t.split)))
            logger.info("\(e.kind.rawValue) at \(e.time) (\(e.cause)) → \(e.state.rawValue)")
            hook?.run(event: e, session: sessionID)
        }
    }

    private func afterInput() async {
        // Asked on every input: the engine is read in place, not copied.
        for passing in recording.badges.update(distance: engine.stats.distance, sessionActive: engine.state.isActive) {
            record(SessionEvent(kind: .badge, time: engine.now, detectedAt: engine.now, cause: passing.cause,
                                state: engine.state, detail: passing.badge.name))
        }
        if let kind = gpsLoss.update(hasFix: engine.hasGPS, sessionActive: engine.state.isActive) {
            record(SessionEvent(kind: kind, time: engine.now, detectedAt: engine.now, cause: "gps", state: engine.state))
        }
        if recording.eventJournaled {
            recording.eventJournaled = false
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
        let ended = engine.state == .stopped
        guard let sid = sessionID ?? recording.pending?.sessionID,
              let batch = recording.takeBatch(session: sid, snapshot: engine.snapshot, ended: ended) else { return }
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
            if recording.putBack(batch), ended { sessionID = sid }
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

    /// Everything stored about a session, in the form the exporters and the
    /// statistics take; the live session's figures come from the engine.
    public func exportSession(id sid: Int64) async throws(RequestError) -> ExportSession {
        let found: ExportSession?
        do {
            found = try await archive.export(id: sid, live: live)
        } catch {
            markStoreError(error)
            throw RequestError(.storeError, "the store failed: \(error)")
        }
        guard let found else { throw RequestError(.notFound, "no session \(sid); ?SESSIONS; lists them") }
        return found
    }

    /// The session being recorded, as the archive sees it.
    private var live: LiveSession? {
        sessionID.map { LiveSession(id: $0, snapshot: engine.snapshot, state: engine.state) }
    }

    private func markStoreError(_ error: any Error) {
        if storeHealthy { logger.error("store error: \(error)") }
        storeHealthy = false
        storeError = "\(error)"
    }

    private func broadcast(_ line: String) {
        for sink in watchers.values { sink(line) }
    }

    private func status(id: JSONValue?) -> StatusReply {
        liveStatus.reply(at: clock.now(), id: id)
    }

    /// `STATUS` as of now, before its time and id.
    private var liveStatus: LiveStatus {
        let health = StoreStatus(healthy: storeHealthy, lastError: storeError, pendingRows: recording.pending?.rowCount ?? 0,
                                 consolidationError: store.consolidationError)
        return LiveStatus(engine: engine, inputs: inputHealth, session: sessionID, lastSession: lastSessionID,
                          lastTransition: recording.lastTransition, store: health, quiet: quiet, units: config.units,
                          calories: archive.calories, ladder: recording.badges.ladder)
    }

    private func error(_ code: RequestError.Code, _ message: String, _ id: JSONValue?) -> String {
        ReplyEncoder.line(ErrorReply(RequestError(code, message, id: id)))
    }

    private func storeFailure(_ e: any Error, _ id: JSONValue?) -> String {
        markStoreError(e)
        return error(.storeError, "the store failed: \(e); check free space and permissions of \(config.stateDir)", id)
    }
}
