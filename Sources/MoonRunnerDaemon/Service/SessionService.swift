import Logging
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore
import MoonRunnerSystem
import MoonRunnerTerrain

/// The serialiser: every input and every command on the live session goes
/// through this actor, one at a time, so the pure values it holds need no
/// locks: the engine, what the session records (`SessionRecording`), when it is
/// written (`CommitScheduler`), `STATUS` (`LiveStatus`). It does the I/O they
/// decide: store writes never block a thread, and the actor keeps taking
/// samples while a commit is in flight (`SessionService+Commits`). Commands return typed
/// replies or throw a `RequestError`: the wire is the `RequestRouter`'s, and
/// recorded sessions are the `SessionArchive`'s.
public actor SessionService {
    var engine: SessionEngine
    let store: SessionStore
    let clock: EngineClock
    private let config: DaemonConfig
    let logger: Logger

    /// The last session started: `STATUS` shows it while the engine rests stopped after it.
    private var lastSessionID: Int64?
    private var starting = false
    /// Events, splits and badges of the live session.
    var recording: SessionRecording
    /// The rows for the store, the commit in flight and the store's health.
    var commits: CommitScheduler
    /// Reused between calls so that the IMU path does not allocate per sample.
    private var outputs: [EngineOutput] = []

    /// Rung when the heartbeat is wanted again: a session starts or ends, a watcher joins.
    nonisolated let bell = Doorbell()
    /// The clients watching: every `STATUS` and `EVENT` is sent to them.
    nonisolated let watchers: Watchers
    var inputHealth = InputHealth()
    private let calories: CalorieModel
    private var lastRetention = -Double.infinity
    private let hook: TransitionHook?
    /// The course and workout libraries (their requests and uploads need no session state).
    public nonisolated let library: CourseLibrary
    public nonisolated let workouts: WorkoutLibrary
    private let recovery: SessionRecovery
    /// Announcers are asked to keep silent (`?ANNOUNCE`); not kept across restarts.
    private var quiet = false
    private let terrain: TerrainFolder?
    var battery: BatteryWatch
    /// The input adapters' health, read when `STATUS` is made (set by the daemon).
    private var readings: (@Sendable () -> AdapterReadings)?
    /// Told whether a session needs the sensors, at each change (they park without one).
    private var wantSensors: (@Sendable (Bool) -> Void)?
    private var toldActive: Bool?
    /// What the journal has been told of the devices (their health and faults, as they change).
    private var healthLog = DeviceHealthLog()
    /// The last STATUS pushed to watchers while idle (no heartbeat then: a change is pushed).
    private var idleStatus: StatusReply?
    /// The sensors' batches held for the next fix (see `IMUService.hold`).
    var held: (@Sendable () -> HeldInputs)?
    /// The fixes waiting for the IMU's samples of their instant.
    var order = InputOrder()
    /// When watchers last got `STATUS` (monotonic): a fix ticks when a second has passed.
    public private(set) var lastTick = -Double.infinity
    /// Where the journal's queue leaves the outcome of a routine commit.
    let routine = CommitMailbox()
    /// A routine commit is in flight; `awaitingRoutine`: someone waits for its outcome.
    var routineInFlight = false
    var awaitingRoutine = false

    public init(config: DaemonConfig, store: SessionStore, clock: EngineClock, logger: Logger) {
        self.config = config
        self.store = store
        self.clock = clock
        self.logger = logger
        library = CourseLibrary(store: store, clock: clock, maxUploadBytes: config.courseMaxUploadKB * 1024)
        workouts = WorkoutLibrary(store: store, clock: clock, profile: config.engineConfig.heartRate)
        terrain = TerrainTiles.open(config, logger: logger)
        engine = SessionEngine(config: config.engineConfig, terrain: terrain)
        calories = CalorieModel(bodyMass: config.bodyMassKg)
        recording = SessionRecording(units: config.units)
        battery = BatteryWatch(settings: config.battery)
        watchers = Watchers(bell: bell)
        idleStatusInterval = min(10, config.idleTimeout / 2)
        // A database found damaged at start was kept aside: say so in STATUS.
        commits = CommitScheduler(interval: config.commitInterval, damage: store.recoveredFromDamage.map { "\($0)" })
        recovery = SessionRecovery(store: store, library: library, logger: logger)
        outputs.reserveCapacity(64)
        hook = config.hookCommand.isEmpty ? nil : TransitionHook(command: config.hookCommand, timeout: config.hookTimeout,
                                                                 logger: logger)
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
            storeFailed(error)
        }
        await applyRetention()
    }

    /// Carries on session `s`, last committed `age` seconds ago.
    private func resume(_ s: StoredSession, age: Double) async throws {
        lastSessionID = s.id
        commits.pending = CommitBatch(sessionID: s.id, snapshot: s.snapshot)
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
            storeFailed(error)
        }
    }

    /// The devices read now (once connected): their health into `STATUS`, a change into the journal.
    func readDevices() {
        if let readings { refresh(readings()) }
    }

    /// The adapters' health, as the daemon's heartbeat reads it.
    public func refresh(_ adapters: AdapterReadings) {
        inputHealth.refresh(adapters)
        healthLog.observe(adapters, at: MonotonicClock.now(), to: logger)
    }

    /// Wires the adapters: `readings` is read for every `STATUS`, `want` told
    /// at once and at every change whether a session needs the sensors.
    public func connect(readings: @escaping @Sendable () -> AdapterReadings, want: @escaping @Sendable (Bool) -> Void,
                        held: @escaping @Sendable () -> HeldInputs) {
        self.readings = readings
        wantSensors = want
        self.held = held
        toldActive = nil
        tellActivity()
    }

    /// A session is active: the heartbeat ticks (1 Hz while watched).
    public var isActive: Bool { engine.state.isActive }

    private func tellActivity() {
        let active = engine.state.isActive
        guard active != toldActive, let want = wantSensors else { return }
        toldActive = active
        idleStatus = nil
        want(active)
        bell.ring()
    }

    /// Seconds between the STATUS lines an idle daemon sends its watchers
    /// (and a session's heartbeat while nobody watches): 10 s, or half of
    /// `socket.idle_timeout_s` when that is shorter, so a watcher is never
    /// taken for idle. A watcher that hears nothing for three may take the
    /// daemon for stuck.
    public nonisolated let idleStatusInterval: Double

    /// The heartbeat: time passes, watchers get `STATUS`, batches commit.
    public func tick() async {
        let now = clock.now()
        lastTick = MonotonicClock.now()
        takeHeld()
        // Not past a fix still waiting: auto-pause would judge that second without it.
        let through = min(now, order.waitingSince ?? now)
        collect { engine, emit in engine.advance(to: through, emit: emit) }
        let s = status()
        watchers.send(s)
        if !engine.state.isActive { idleStatus = s }
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

    /// `STATUS` as of now. Out of line: built inside an async caller, its
    /// temporaries would sit in the caller's frame, which a connection keeps
    /// at its peak size for as long as it is open.
    @inline(never)
    public func status() -> StatusReply {
        // The journal hears of a device's change before any client sees it in STATUS.
        readDevices()
        return liveStatus.reply(at: clock.now())
    }

    /// `?START`: a session of `activity` (the configured one when nil),
    /// following `course`, heading for `destination` and running `plan` when given.
    public func start(_ activity: Activity?, course: FollowedCourse?, destination: GeoPoint?,
                      workout plan: WorkoutPlan? = nil) async throws(RequestError) -> StatusReply {
        let activity = activity ?? config.defaultActivity
        if let refusal = StartRefusal(asked: activity, current: engine.stats.activity, state: engine.state,
                                      starting: starting) {
            throw RequestError(.invalidState, refusal.message)
        }
        starting = true
        defer { starting = false }
        TerrainTiles.reload(terrain, logger: logger)
        takeHeld(flush: true)
        let t = clock.now()
        var probe = engine
        do throws(SessionCommandError) {
            try probe.start(activity: activity, at: t, course: course, destination: destination, workout: plan) { _ in }
        } catch {
            throw RequestError(.invalidState, error.description)
        }
        let newID: Int64
        do {
            newID = try await store.createSession(activity: activity, snapshot: probe.snapshot)
        } catch {
            throw storeFailure(error)
        }
        lastSessionID = newID
        commits.pending = CommitBatch(sessionID: newID, snapshot: probe.snapshot)
        collect { engine, emit in
            try? engine.start(activity: activity, at: t, course: course, destination: destination, workout: plan, emit: emit)
        }
        await afterInput()
        await commitsSettled()
        return status()
    }

    /// `?PAUSE`, `?RESUME`, `?LAP`, `?STOP`. The reply says it is done once it
    /// is on disk (a commit already in flight when the command came would
    /// otherwise still be writing its batch).
    public func run(_ command: SessionCommand) async throws(RequestError) -> StatusReply {
        takeHeld(flush: true)
        let t = clock.now()
        var failure: SessionCommandError?
        var produced: [EngineOutput] = []
        do throws(SessionCommandError) {
            try command.run(on: &engine, at: t) { produced.append($0) }
        } catch {
            failure = error
        }
        for o in produced { handle(o) }
        if let failure {
            throw RequestError(.invalidState, "cannot \(command.rawValue): the session is \(failure.state.rawValue)")
        }
        await afterInput()
        await commitsSettled()
        return status()
    }

    /// `?BADGES`: the board of the live (else the last) session's activity.
    public func badges() -> BadgesReply {
        let live = sessionID.map { (session: $0, distance: engine.stats.distance) }
        return BadgesReply(activity: recording.badges.activity, board: recording.badges.board, live: live)
    }

    /// `?ANNOUNCE`: watchers learn a change now rather than at the next tick.
    public func announce(quiet q: Bool) -> StatusReply {
        if q != quiet {
            quiet = q
            logger.notice("announcements \(q ? "muted" : "unmuted")")
            watchers.send(status())
        }
        return status()
    }

    // MARK: Internals

    /// Runs the engine with a buffer for its outputs, then handles them. The
    /// buffer is kept between calls, so a sample costs no allocation.
    func collect(_ body: (inout SessionEngine, (EngineOutput) -> Void) -> Void) {
        var buffer = outputs
        outputs = []
        buffer.removeAll(keepingCapacity: true)
        body(&engine) { buffer.append($0) }
        for o in buffer { handle(o) }
        buffer.removeAll(keepingCapacity: true)
        outputs = buffer
    }

    private func handle(_ output: EngineOutput) {
        tell(recording.take(output, from: engine, into: &commits.pending))
    }

    func record(_ event: SessionEvent) {
        tell(recording.record(event, from: engine, into: &commits.pending))
    }

    /// Tells watchers, the hook and the log what was journaled (in UTC).
    private func tell(_ told: [SessionRecording.Told]) {
        for t in told {
            let e = t.event
            watchers.send(EventReply(session: sessionID, event: e, split: t.split))
            logger.info("\(e.kind.rawValue) at \(e.time) (\(e.cause)) → \(e.state.rawValue)")
            hook?.run(event: e, session: sessionID)
        }
    }

    /// After every input and command: the moments it brought, then a commit when one is due.
    func afterInput() async {
        await takeRoutineOutcome()
        tell(recording.look(at: engine, into: &commits.pending))
        if recording.eventJournaled {
            recording.eventJournaled = false
            await commit(force: true)
        } else if commits.isDue(at: clock.now()) {
            await commit(force: false)
        }
        tellActivity()
        if !engine.state.isActive { pushIdleStatus() }
    }


    /// Idle, the heartbeat sleeps: watchers get a STATUS when it says
    /// something new (its time aside), after the input that changed it.
    private func pushIdleStatus() {
        guard !watchers.isEmpty else { return }
        var s = status()
        let time = s.time
        s.time = idleStatus?.time ?? time
        guard s != idleStatus else { return }
        s.time = time
        idleStatus = s
        watchers.send(s)
    }

    /// The session being recorded: the one whose rows are not all written yet.
    var sessionID: Int64? { commits.session }

    /// The session being recorded, as the archive sees it (its engine is newer than its stored row).
    var liveSession: LiveSession? {
        sessionID.map { LiveSession(id: $0, snapshot: engine.snapshot, state: engine.state) }
    }

    /// The store failed a read or write: `STATUS` says so until a commit is written again.
    func storeFailed(_ error: any Error) {
        if commits.storeFailed(error) { logger.error("store error: \(error)") }
    }

    /// `STATUS` as of now, before its time.
    private var liveStatus: LiveStatus {
        LiveStatus(engine: engine, inputs: inputHealth, session: sessionID, lastSession: lastSessionID,
                   lastTransition: recording.lastTransition,
                   store: commits.status(consolidationError: store.consolidationError), quiet: quiet,
                   units: config.units, calories: calories, ladder: recording.badges.ladder,
                   battery: battery.status(inputHealth.battery))
    }

    /// A read or write of a command failed: the store's health says so, and the client what to check.
    private func storeFailure(_ e: any Error) -> RequestError {
        storeFailed(e)
        return RequestError(.storeError, "the store failed: \(e); check free space and permissions of \(config.stateDir)")
    }
}
