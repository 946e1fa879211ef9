import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerDaemon

/// `STATUS` composed from one moment of the service: the engine, the adapters' side, the store.
@Suite("Live status")
struct LiveStatusTests {
    static let healthy = StoreStatus(health: .ok, pending: 0, lastError: nil)

    static func status(_ engine: SessionEngine, inputs: InputHealth = InputHealth(), session: Int64? = nil,
                       lastSession: Int64? = nil, quiet: Bool = false) -> LiveStatus {
        LiveStatus(engine: engine, inputs: inputs, session: session, lastSession: lastSession, store: healthy,
                   quiet: quiet, units: .metric, calories: CalorieModel(bodyMass: 70))
    }

    /// An engine recording a run since t = 1000 that has covered about `metres` at 3 m/s.
    static func running(metres: Double) throws -> SessionEngine {
        var engine = SessionEngine()
        try engine.start(activity: .run, at: 1000) { _ in }
        for k in 0...Int(metres / 3) {
            let t = 1000 + Double(k)
            engine.ingest(SessionServiceTests.fix(t, metres: Double(k) * 3), at: t) { _ in }
        }
        return engine
    }

    @Test("idle: no session, no figures, no calories, no next badge and no calorie method")
    func idle() {
        let reply = Self.status(SessionEngine(), lastSession: 4).reply(at: 5000)
        #expect(reply.state == .idle)
        #expect(reply.session == nil, "the last session is shown only while the engine rests stopped after it")
        #expect(reply.activity == nil && reply.distanceM == 0)
        #expect(reply.caloriesKcal == 0 && reply.caloriesMethod == nil)
        #expect(reply.nextBadge == nil)
        #expect(reply.time == 5000, "no receiver yet: the engine's time is all there is")
    }

    @Test("recording: the session's figures, the next badge and the metres left to it, calories by ACSM from the totals")
    func recording() throws {
        let engine = try Self.running(metres: 600)
        let reply = Self.status(engine, session: 7, lastSession: 7).reply(at: 1200)
        #expect(reply.state == .recording && reply.session == 7 && reply.activity == "run")
        #expect(reply.distanceM == engine.stats.distance && reply.distanceM > 500)
        let next = try #require(reply.nextBadge)
        #expect(next.name == "Moon")
        #expect(abs(next.leftM - (1000 - engine.stats.distance)) < 1e-9)
        let acsm = CalorieModel(bodyMass: 70).kcal(distance: engine.stats.distance, moving: engine.stats.moving,
                                                   elevationGain: engine.stats.elevationGain, activity: .run)
        #expect(reply.caloriesKcal == acsm && reply.caloriesMethod == .acsm)
    }

    @Test("stopped: the last session is still shown, with its figures, and no badge is ahead any more")
    func stopped() throws {
        var engine = try Self.running(metres: 300)
        try engine.stop(at: 1200) { _ in }
        let reply = Self.status(engine, session: nil, lastSession: 7).reply(at: 1300)
        #expect(reply.state == .stopped && reply.session == 7)
        #expect(reply.distanceM > 250)
        #expect(reply.nextBadge == nil)
    }

    @Test("the adapters' health and counts, with the engine's signal grade and the samples it refused added")
    func inputs() {
        var inputs = InputHealth()
        inputs.gps = GPSStatus(health: .ok, grade: .bad, fixes: 12, connects: 2)
        inputs.imu = IMUStatus(health: .ok, samples: 500, rejected: 3, busErrors: 1, overflows: 0)
        let engine = SessionEngine()
        let reply = Self.status(engine, inputs: inputs).reply(at: 0)
        #expect(reply.gps == GPSStatus(health: .ok, grade: engine.signal, fixes: 12, connects: 2))
        #expect(reply.imu.samples == 500 && reply.imu.rejected == 3 + engine.rejectedSamples && reply.imu.busErrors == 1)
        #expect(reply.baro.health == SensorHealth.none && reply.hr?.health == SensorHealth.none)
        #expect(reply.hrState == HeartRateLinkState.none)
    }

    @Test("the announcers' quiet goes out as it came; the request's id is the router's to set")
    func passedThrough() {
        let reply = Self.status(SessionEngine(), quiet: true).reply(at: 0)
        #expect(reply.quiet == true)
        #expect(reply.id == nil)
    }

    @Test("the store is an error while commits fail or the database cannot take the journal in, with the reason")
    func store() {
        #expect(StoreStatus(healthy: true, lastError: nil, pendingRows: 3, consolidationError: nil)
            == StoreStatus(health: .ok, pending: 3, lastError: nil))
        #expect(StoreStatus(healthy: false, lastError: "disk full", pendingRows: 40, consolidationError: nil)
            == StoreStatus(health: .error, pending: 40, lastError: "disk full"))
        #expect(StoreStatus(healthy: true, lastError: nil, pendingRows: 0, consolidationError: "locked")
            == StoreStatus(health: .error, pending: 0, lastError: "the database cannot take the journal in: locked"))
    }

    @Test("systemd's one line: the state, and while a session runs its distance, moving time and steps")
    func oneLine() throws {
        #expect(Self.status(SessionEngine()).oneLine == "idle; gps connecting, imu lost")
        let engine = try Self.running(metres: 0)
        #expect(Self.status(engine).oneLine
            == "recording \(Formatting.distance(engine.stats.distance, .metric)) \(Formatting.duration(engine.stats.moving)) 0 steps; gps connecting, imu lost")
    }
}
