import Foundation
import Testing
@testable import MoonRunnerCore

/// Synthetic inputs: a walking-like accelerometer signal and GPS fixes along a line.
enum Synth {
    /// |a| oscillating at `stepHz` (one step per cycle) around 1 g.
    static func walking(from t0: Double, to t1: Double, rate: Double = 100, stepHz: Double = 1.8) -> [IMUSample] {
        stride(from: t0, to: t1, by: 1 / rate).map { t in
            let a = 1 + 0.35 * sin(2 * .pi * stepHz * t) + 0.1 * sin(2 * .pi * 2 * stepHz * t + 0.7)
            return IMUSample(t: t, ax: 0.05, ay: 0.02, az: a)
        }
    }

    static func still(from t0: Double, to t1: Double, rate: Double = 100) -> [IMUSample] {
        stride(from: t0, to: t1, by: 1 / rate).map { IMUSample(t: $0, ax: 0.01, ay: 0.0, az: 1.0) }
    }

    static func fix(_ t: Double, north metres: Double, speed: Double) -> GPSFix {
        GPSFix(time: t, mode: 3, latitude: 51.5 + metres / 111_200, longitude: -0.15, altitude: 30,
               eph: 8, speed: speed, track: 0)
    }
}

/// Runs an engine over merged inputs and records what it emits.
struct EngineRun {
    var engine = SessionEngine()
    var outputs: [EngineOutput] = []

    mutating func feed(_ samples: [IMUSample]) {
        var out: [EngineOutput] = []
        for s in samples { engine.ingest(s) { out.append($0) } }
        outputs += out
    }

    mutating func fix(_ f: GPSFix) {
        var out: [EngineOutput] = []
        engine.ingest(f, at: f.time) { out.append($0) }
        outputs += out
    }

    mutating func command(_ body: (inout SessionEngine, (EngineOutput) -> Void) throws -> Void) rethrows {
        var out: [EngineOutput] = []
        try body(&engine) { out.append($0) }
        outputs += out
    }

    var events: [SessionEvent] {
        outputs.compactMap { if case let .event(e) = $0 { return e } else { return nil } }
    }
}

@Suite("Session engine")
struct SessionEngineTests {
    @Test("start, pause, resume, lap and stop move through the states with events")
    func commands() throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .walk, at: 100, emit: emit) }
        #expect(run.engine.state == .recording)
        try run.command { e, emit in try e.pause(at: 110, emit: emit) }
        #expect(run.engine.state == .paused)
        // A manual pause is never resumed by steps.
        run.feed(Synth.walking(from: 110, to: 125))
        #expect(run.engine.state == .paused)
        try run.command { e, emit in try e.resume(at: 130, emit: emit) }
        try run.command { e, emit in try e.lap(at: 131, emit: emit) }
        try run.command { e, emit in try e.stop(at: 140, emit: emit) }
        #expect(run.engine.state == .stopped)
        #expect(run.events.map(\.kind) == [.start, .pause, .resume, .lap, .stop])
        #expect(run.engine.stats.elapsed == 40)
        #expect(run.engine.stats.moving == 20)
        #expect(run.engine.stats.laps == 1)
        #expect(throws: SessionCommandError.self) { try run.command { e, emit in try e.pause(at: 150, emit: emit) } }
    }

    @Test("commands refused in the wrong state")
    func refused() {
        var engine = SessionEngine()
        #expect(throws: SessionCommandError(command: "stop", state: .idle)) { try engine.stop(at: 1) { _ in } }
        #expect(throws: SessionCommandError(command: "resume", state: .idle)) { try engine.resume(at: 1) { _ in } }
        try? engine.start(activity: .run, at: 0) { _ in }
        #expect(throws: SessionCommandError(command: "start", state: .recording)) { try engine.start(activity: .run, at: 1) { _ in } }
        #expect(throws: SessionCommandError(command: "resume", state: .recording)) { try engine.resume(at: 1) { _ in } }
    }

    @Test("standing still pauses automatically, back-dated; steps resume it")
    func autoPause() throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .walk, at: 0, emit: emit) }
        run.feed(Synth.walking(from: 0, to: 30))
        run.feed(Synth.still(from: 30, to: 60))
        run.feed(Synth.walking(from: 60, to: 90))
        try run.command { e, emit in try e.stop(at: 90, emit: emit) }
        let kinds = run.events.map(\.kind)
        #expect(kinds == [.start, .autopause, .autoresume, .stop])
        let pause = try #require(run.engine.pauses.first)
        // Back-dated to the last step (within a step period), decided after the
        // quick dwell: no step and a still IMU.
        #expect(abs(pause.start - 30) < 1.5)
        #expect(pause.detectedAt >= pause.start + run.engine.config.autoPause.stillDwell - 0.01)
        #expect(pause.detectedAt <= 30 + run.engine.config.autoPause.stillDwell + 1.5)
        #expect(run.events[1].cause == "still")
        #expect(abs(pause.end - 60) < 1.5)
        #expect(abs(run.engine.stats.moving - 60) < 3)
        #expect(run.engine.stats.steps > 90)
    }

    @Test("GPS vetoes a false pause: a still device moving fast (a bike, a hand-held) keeps recording")
    func gpsVeto() throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .run, at: 0, emit: emit) }
        for t in 0..<60 {
            run.feed(Synth.still(from: Double(t), to: Double(t) + 1))
            run.fix(Synth.fix(Double(t), north: Double(t) * 5, speed: 5))
        }
        #expect(run.engine.state == .recording, "\(run.events.map(\.kind))")
        #expect(run.engine.stats.distance > 200)
    }

    @Test("the IMU vetoes GPS drift: standing still with wandering fixes pauses")
    func imuVeto() throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .run, at: 0, emit: emit) }
        run.feed(Synth.walking(from: 0, to: 20))
        for t in 20..<60 {
            run.feed(Synth.still(from: Double(t), to: Double(t) + 1))
            // Drift: positions wander by metres, Doppler near zero.
            run.fix(Synth.fix(Double(t), north: Double(t % 3) * 4, speed: 0.3))
        }
        #expect(run.engine.state == .autoPaused)
        let pause = try #require(run.engine.pauses.first)
        #expect(abs(pause.start - 20) < 1.5)
    }

    @Test("without any sensor input nothing is paused")
    func noSensors() throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .run, at: 0, emit: emit) }
        run.command { e, emit in e.advance(to: 120, emit: emit) }
        #expect(run.engine.state == .recording)
    }

    @Test("motion without steps (gestures) pauses; it does not resume a pause")
    func gestures() throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .walk, at: 0, emit: emit) }
        run.feed(Synth.walking(from: 0, to: 20))
        // Waving the arm: energetic but nothing like a gait.
        // Typed step by step: Swift 6.2's type checker gives up on the one expression.
        let waving = stride(from: 20.0, to: 60.0, by: 0.01).map { (t: Double) -> IMUSample in
            let w: Double = 2 * .pi * t
            let ax: Double = 0.3 * sin(0.4 * w)
            let ay: Double = 0.2 * cos(0.3 * w)
            let az: Double = 1 + 0.15 * sin(0.23 * w) + 0.1 * sin(0.61 * w)
            return IMUSample(t: t, ax: ax, ay: ay, az: az)
        }
        run.feed(waving)
        #expect(run.engine.state == .autoPaused)
        let pause = try #require(run.engine.pauses.first)
        // Back-dated to the last step, decided no earlier than the quick dwell and
        // no later than the slow one.
        #expect(abs(pause.start - 20) < 1.5)
        #expect(pause.detectedAt - pause.start >= run.engine.config.autoPause.stillDwell - 0.01)
        #expect(pause.detectedAt - pause.start <= run.engine.config.autoPause.pauseDwell + 1.5)
        #expect(!run.events.contains { $0.kind == .autoresume }, "\(run.events.map(\.kind))")
        #expect(run.engine.stats.steps < 45)
    }

    @Test("standing at the finish before stop is a pause; stopping mid-stride is not")
    func stillAtStop() throws {
        // Fidgeting after the walk keeps the quick path from pausing, and the stop
        // comes before the slow dwell runs out.
        func fidget(_ t0: Double, _ t1: Double) -> [IMUSample] {
            stride(from: t0, to: t1, by: 0.01).map { (t: Double) -> IMUSample in
                let w: Double = 2 * .pi * t
                let ax: Double = 0.3 * sin(0.4 * w)
                let ay: Double = 0.2 * cos(0.3 * w)
                let az: Double = 1 + 0.25 * sin(0.5 * w)
                return IMUSample(t: t, ax: ax, ay: ay, az: az)
            }
        }
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .walk, at: 0, emit: emit) }
        run.feed(Synth.walking(from: 0, to: 30))
        run.feed(fidget(30, 36))
        #expect(run.engine.state == .recording)
        try run.command { e, emit in try e.stop(at: 36, emit: emit) }
        let pause = try #require(run.engine.pauses.last)
        #expect(abs(pause.start - 30) < 1.0, "back-dated to the last step: \(pause.start)")
        #expect(pause.end == 36)
        #expect(run.events.contains { $0.kind == .autopause && $0.cause == "still_at_stop" })
        #expect(abs(run.engine.stats.moving - pause.start) < 0.01)

        var moving = EngineRun()
        try moving.command { e, emit in try e.start(activity: .walk, at: 0, emit: emit) }
        moving.feed(Synth.walking(from: 0, to: 30))
        try moving.command { e, emit in try e.stop(at: 30, emit: emit) }
        #expect(moving.engine.pauses.isEmpty)
        #expect(moving.engine.stats.moving == 30)
    }

    @Test("implausible and out-of-order samples are refused and counted")
    func badSamples() throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .run, at: 0, emit: emit) }
        run.feed([IMUSample(t: 1, ax: .nan, ay: 0, az: 1), IMUSample(t: 2, ax: 0, ay: 0, az: 400),
                  IMUSample(t: 3, ax: 0, ay: 0, az: 1), IMUSample(t: 2.5, ax: 0, ay: 0, az: 1),
                  IMUSample(t: 4, ax: 0, ay: 0, az: 1, gx: .infinity, gy: 0, gz: 0)])
        #expect(run.engine.rejectedSamples == 4)
    }

    @Test("GPS distance accrues only while recording")
    func distance() throws {
        var run = EngineRun()
        for t in 0..<10 { run.fix(Synth.fix(Double(t), north: Double(t) * 3, speed: 3)) }
        #expect(run.engine.stats.distance == 0)
        try run.command { e, emit in try e.start(activity: .run, at: 10, emit: emit) }
        for t in 10..<70 { run.fix(Synth.fix(Double(t), north: Double(t) * 3, speed: 3)) }
        #expect(abs(run.engine.stats.distance - 177) < 10)
        #expect(run.engine.stats.points > 50)
        #expect(run.engine.signal == .best)
    }

    @Test("a restored session counts the time the daemon was away as a pause")
    func restore() throws {
        var run = EngineRun()
        try run.command { e, emit in try e.start(activity: .run, at: 0, emit: emit) }
        run.feed(Synth.walking(from: 0, to: 20))
        let snap = run.engine.snapshot
        var engine = SessionEngine()
        var events: [EngineOutput] = []
        engine.restore(snap, at: 50) { events.append($0) }
        #expect(engine.state == .recording)
        #expect(engine.stats.steps == snap.stats.steps)
        #expect(abs(engine.stats.elapsed - 50) < 0.001)
        #expect(abs(engine.stats.moving - snap.stats.moving) < 0.001)
        let restoredPause = try #require(engine.pauses.last)
        #expect(restoredPause.start == snap.lastTime && restoredPause.end == 50)
    }
}

@Suite("Formatting")
struct FormattingTests {
    @Test("the seed app's formats")
    func seedFormats() {
        #expect(Formatting.distance(3420) == "3.42 km")
        #expect(Formatting.distance(1609.344, .imperial) == "1.00 mi")
        #expect(Formatting.duration(25 * 60 + 13) == "00:25:13")
        #expect(Formatting.duration(3 * 3600 + 5) == "03:00:05")
        #expect(Formatting.pace(speed: 1000 / 442.0) == "7:22 min/km")
        #expect(Formatting.pace(speed: 0) == "--:-- min/km")
        #expect(Formatting.pace(speed: 1609.344 / 600, .imperial) == "10:00 min/mi")
    }
}
