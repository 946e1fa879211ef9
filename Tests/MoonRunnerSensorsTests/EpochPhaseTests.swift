import Testing
@testable import MoonRunnerSensors

/// When the gpsd client reads: once an epoch, just after its last report.
@Suite("Epoch phase")
struct EpochPhaseTests {
    @Test("measured at the last report, the next read is due an epoch plus the margin later; unmeasured ones creep earlier")
    func locksAndCreeps() throws {
        var p = EpochPhase(speed: 1)
        #expect(p.sleep(at: 0, interval: 1) == nil, "nothing measured: wait on the socket")
        p.completed(receiverTime: 100, at: 10.0, measured: true, interval: 1)
        let due = try #require(p.due)
        #expect(abs(due - (11.0 + EpochPhase.margin)) < 1e-9)
        #expect(abs((p.sleep(at: 10.2, interval: 1) ?? -1) - (due - 10.2)) < 1e-9)
        // Read at the due time, the epoch was there: when it came is not known.
        p.completed(receiverTime: 101, at: due + 0.001, measured: false, interval: 1)
        #expect(abs((p.due ?? 0) - (due + 1 - EpochPhase.drift)) < 1e-9)
        // Measured again 1.005 s of this clock per receiver second later: the pace is learned.
        p.completed(receiverTime: 102, at: 12.010, measured: true, interval: 1)
        #expect(abs(p.rate - 1.005) < 1e-9)
        #expect(abs((p.due ?? 0) - (12.010 + 1.005 + EpochPhase.margin)) < 1e-9)
    }

    @Test("a short epoch, a stall or a stale due time sends the client back to the socket; a replay's times shrink")
    func resetsAndScales() {
        var p = EpochPhase(speed: 1)
        p.completed(receiverTime: 100, at: 10, measured: true, interval: 1)
        #expect(p.sleep(at: 13, interval: 1) == nil, "a due time in the past is not slept to")
        p.reset()
        #expect(p.due == nil)
        // A machine that stalled between two measured epochs, or a second TPV that came
        // late in one of them, teaches no pace.
        p.completed(receiverTime: 100, at: 10, measured: true, interval: 1)
        p.completed(receiverTime: 101, at: 14, measured: true, interval: 1)
        #expect(p.rate == 1)
        p.completed(receiverTime: 102, at: 14.92, measured: true, interval: 1)
        #expect(p.rate == 1)
        var fast = EpochPhase(speed: 20)
        fast.completed(receiverTime: 100, at: 10, measured: true, interval: 1)
        #expect(abs((fast.due ?? 0) - (10 + (1 + EpochPhase.margin) / 20)) < 1e-9)
    }
}
