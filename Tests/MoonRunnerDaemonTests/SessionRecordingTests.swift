import MoonRunnerCore
import MoonRunnerStore
import Testing
@testable import MoonRunnerDaemon

/// What the engine's outputs become: rows for the next commit and events to tell.
@Suite("Session recording")
struct SessionRecordingTests {
    /// A recording with a batch open for session 5 and an engine started at t = 1000.
    static func started() throws -> (SessionRecording, SessionEngine, CommitBatch?) {
        var recording = SessionRecording(units: .metric)
        var engine = SessionEngine()
        var outputs: [EngineOutput] = []
        try engine.start(activity: .run, at: 1000) { outputs.append($0) }
        var batch: CommitBatch? = CommitBatch(sessionID: 5, snapshot: engine.snapshot)
        for o in outputs { _ = recording.take(o, from: engine, into: &batch) }
        return (recording, engine, batch)
    }

    static func point(_ t: Double, metres: Double) -> TrackPoint {
        TrackPoint(time: t, fixTime: t, latitude: 48 + metres / 111_200, longitude: 11, altitude: 500, speed: 3,
                   course: 0, eph: 5, newSegment: false, distance: metres)
    }

    @Test("the start is journaled on the engine clock and told; the next commit is then forced")
    func start() throws {
        let (recording, _, batch) = try Self.started()
        #expect(batch?.events.map(\.kind) == [.start])
        #expect(recording.eventJournaled)
        #expect(recording.lastTransition?.event == "start")
    }

    @Test("steps in one second add up; the second goes into the batch once a step falls in the next, with the cadence at its last step")
    func stepSeconds() throws {
        var (recording, engine, batch) = try Self.started()
        for t in [1010.1, 1010.6, 1010.9] { _ = recording.take(.step(t), from: engine, into: &batch) }
        #expect(batch?.stepSeconds.isEmpty == true, "the second is still open")
        _ = recording.take(.step(1011.2), from: engine, into: &batch)
        #expect(batch?.stepSeconds.map(\.second) == [1010])
        #expect(batch?.stepSeconds.map(\.steps) == [3])
        #expect(recording.steps.take() == StepSecondSample(second: 1011, steps: 1, cadence: engine.stats.cadence))
        #expect(recording.steps.take() == nil, "a commit takes the open second once")
    }

    @Test("a fix the filter refused is kept only while a session runs")
    func rejected() throws {
        var (recording, engine, batch) = try Self.started()
        let fix = GPSFix(time: 1001, mode: 3, latitude: 0, longitude: 0)
        _ = recording.take(.rejected(.nullIsland, fix, at: 1001), from: engine, into: &batch)
        #expect(batch?.rejected.count == 1)
        try engine.stop(at: 1002) { _ in }
        _ = recording.take(.rejected(.nullIsland, fix, at: 1003), from: engine, into: &batch)
        #expect(batch?.rejected.count == 1)
    }

    @Test("a point that crosses a kilometre is stored and closes a split, told with its figures")
    func split() throws {
        var (recording, engine, batch) = try Self.started()
        var told: [SessionRecording.Told] = []
        for k in 0...110 {
            told += recording.take(.point(Self.point(1000 + Double(k) * 3, metres: Double(k) * 10)), from: engine, into: &batch)
        }
        #expect(batch?.points.count == 111)
        #expect(told.map(\.event.kind) == [.split])
        #expect(told.first?.split?.number == 1 && told.first?.event.detail == "1")
        var outputs: [EngineOutput] = []
        try engine.stop(at: 1400) { outputs.append($0) }
        for o in outputs { _ = recording.take(o, from: engine, into: &batch) }
        #expect(recording.take(.point(Self.point(1401, metres: 2500)), from: engine, into: &batch).isEmpty,
                "no split is found once the session stopped")
    }

    @Test("a stop is told after the badge upgrades it brings, and ends the batch at its time")
    func stop() throws {
        var (recording, engine, batch) = try Self.started()
        // An earlier session earned the Moon at 1 m/s; this one runs 1.35 km at 3 m/s.
        recording.badges.sessions = [BadgeSessionSummary(id: 1, distance: 1100, moving: 1100, startTime: 0)]
        for k in 0..<450 {
            let t = 1000 + Double(k)
            engine.ingest(SessionServiceTests.fix(t, metres: Double(k) * 3), at: t) { _ in }
        }
        var outputs: [EngineOutput] = []
        try engine.stop(at: 1450) { outputs.append($0) }
        let told = outputs.flatMap { recording.take($0, from: engine, into: &batch) }
        // The engine may tell of a pause it saw coming first: only badges and the stop are this rule's.
        let kinds: Set<SessionEventKind> = [.badge, .stop]
        #expect(told.filter { kinds.contains($0.event.kind) }.map { "\($0.event.kind.rawValue):\($0.event.cause)" }
            == ["badge:gold", "stop:command"])
        #expect(batch?.events.filter { kinds.contains($0.kind) }.map(\.kind) == [.badge, .stop])
        #expect(batch?.endTime == 1450)
        #expect(recording.badges.sessions.map(\.id) == [1, 5])
    }
}
