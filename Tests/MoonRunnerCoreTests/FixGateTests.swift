import Testing
@testable import MoonRunnerCore

/// Fixes through one gate as the GPS filter sends them: receiver time `t`,
/// arriving `delay` seconds later on the engine clock (0.25 s: an exact binary
/// fraction, so that placed times compare exactly).
struct GateRun {
    var gate = FixGate()
    var config = GPSFilterConfig()

    mutating func check(_ t: Double, delay: Double = 0.25, r95: Double = 4, mode: Int = 3,
                        latitude: Double = 51.5, longitude: Double = -0.12) -> FixGate.Verdict {
        let fix = GPSFix(time: t, mode: mode, latitude: latitude, longitude: longitude)
        return gate.check(fix, at: t + delay, r95: r95, maxAge: config.maxAge, maxAccuracy: config.maxAccuracy,
                          dropFirstFix: config.dropFirstFix)
    }

    /// A fix without receiver time (gpsd's first fix) arriving at engine time `now`.
    mutating func timeless(arrivingAt now: Double) -> FixGate.Verdict {
        gate.check(GPSFix(time: .nan, mode: 3, latitude: 51.5, longitude: -0.12), at: now, r95: 4,
                   maxAge: config.maxAge, maxAccuracy: config.maxAccuracy, dropFirstFix: config.dropFirstFix)
    }

    /// Past the first fix, which the gate drops.
    static func settled() -> GateRun {
        var run = GateRun()
        _ = run.check(100)
        return run
    }
}

@Suite("Fix gate: which fixes the GPS filter may use, and when on the receiver's clock they were taken")
struct FixGateTests {
    @Test("the first fix with a position is dropped; the next is taken at its receiver time")
    func firstFix() {
        var run = GateRun()
        #expect(run.check(100).time == .failure(.firstFix))
        #expect(run.check(101).time == .success(101))
        var keep = GateRun()
        keep.config.dropFirstFix = false
        #expect(keep.check(100).time == .success(100))
    }

    @Test("a fix without a position is refused; after a loss of fix (mode 0 or 1) the first fix is dropped again")
    func lossOfFix() {
        var run = GateRun.settled()
        #expect(run.check(101, mode: 1, latitude: .nan, longitude: .nan).time == .failure(.noFix))
        #expect(run.check(102).time == .failure(.firstFix))
        #expect(run.check(103).time == .success(103))
        // A 2D or 3D report without coordinates is refused but is no loss of fix.
        #expect(run.check(104, mode: 3, latitude: .nan, longitude: .nan).time == .failure(.noFix))
        #expect(run.check(105).time == .success(105))
    }

    @Test("0,0 is refused and teaches the gate nothing: the next fix is still the first")
    func nullIsland() {
        var run = GateRun()
        #expect(run.check(100, latitude: 0, longitude: 0).time == .failure(.nullIsland))
        #expect(run.check(101).time == .failure(.firstFix))
    }

    @Test("a fix without time is refused until a delay is known, then placed by the smallest delay seen")
    func timelessFix() {
        var run = GateRun()
        #expect(run.timeless(arrivingAt: 50).time == .failure(.noTime))
        _ = run.check(100, delay: 0.5)
        _ = run.check(101, delay: 0.25)
        _ = run.check(102, delay: 0.75)
        #expect(run.timeless(arrivingAt: 110.25).time == .success(110))
    }

    @Test("the time of the last fix again is a duplicate; an earlier one is out of order")
    func order() {
        var run = GateRun.settled()
        #expect(run.check(101).time == .success(101))
        #expect(run.check(101).time == .failure(.duplicate))
        #expect(run.check(99).time == .failure(.outOfOrder))
        #expect(run.check(102).time == .success(102))
    }

    @Test("a fix that arrives more than max_age later than the quickest is stale", arguments: [
        (9.5, .success(101)), (10.5, .failure(.stale)),
    ] as [(Double, Result<Double, FixRejection>)])
    func stale(extraDelay: Double, verdict: Result<Double, FixRejection>) {
        var run = GateRun.settled()
        #expect(run.check(101, delay: 0.25 + extraDelay).time == verdict)
    }

    @Test("five refused fixes in a row that agree on a new delay are a clock that moved: the fifth is taken and asks for a new track")
    func clockJump() {
        var run = GateRun.settled()
        _ = run.check(101)
        // The receiver's clock steps back a day; the fixes keep arriving on time.
        let day = 86_400.0
        let refused = (102...105).map { run.check(Double($0) - day, delay: day + 0.25) }
        #expect(refused.map(\.time) == Array(repeating: .failure(.outOfOrder), count: 4))
        #expect(refused.allSatisfy { !$0.clockJumped })
        #expect(run.check(106 - day, delay: day + 0.25) == FixGate.Verdict(time: .success(106 - day), clockJumped: true))
        #expect(run.check(107 - day, delay: day + 0.25) == FixGate.Verdict(time: .success(107 - day)))
    }

    @Test("late fixes whose delays keep changing (a draining backlog) stay refused")
    func backlog() {
        var run = GateRun.settled()
        _ = run.check(101)
        let late = (0..<8).map { run.check(102 + Double($0), delay: 40 - 3 * Double($0)) }
        #expect(late.allSatisfy { $0.time == .failure(.stale) && !$0.clockJumped })
    }

    @Test("a clock jump is reported even when the fix that completes it is refused for its accuracy")
    func clockJumpOnAPoorFix() {
        var run = GateRun.settled()
        _ = run.check(101)
        for t in 102...105 { _ = run.check(Double(t) - 1000, delay: 1000.25) }
        #expect(run.check(106 - 1000, delay: 1000.25, r95: 80) == FixGate.Verdict(time: .failure(.poorAccuracy), clockJumped: true))
    }

    @Test("a fix whose 95 % error is above max_accuracy is refused, yet its time counts; an unknown error is no reason")
    func accuracy() {
        var run = GateRun.settled()
        #expect(run.check(101, r95: 31).time == .failure(.poorAccuracy))
        #expect(run.check(101).time == .failure(.duplicate))
        #expect(run.check(102, r95: 30).time == .success(102))
        #expect(run.check(103, r95: .nan).time == .success(103))
    }

    @Test("expecting a first fix again drops the next one but keeps the clock")
    func expectFirstFix() {
        var run = GateRun.settled()
        run.gate.expectFirstFix()
        #expect(run.check(101).time == .failure(.firstFix))
        #expect(run.check(100).time == .failure(.outOfOrder))
        #expect(run.timeless(arrivingAt: 102.25).time == .success(102))
    }
}
