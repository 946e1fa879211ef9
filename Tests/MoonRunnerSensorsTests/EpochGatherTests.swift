import Testing
@testable import MoonRunnerSensors

/// How the gpsd client tells an epoch is complete: pure, times passed in.
@Suite("Epoch gather")
struct EpochGatherTests {
    @Test("a TPV that comes after its epoch left teaches how many an epoch brings")
    func learnsTheCount() {
        var g = EpochGather(speed: 1)
        #expect(g.complete(1))
        // gpsd's TPV for the RMC came after the epoch went with the GGA's.
        g.late(1, after: 1)
        #expect(!g.complete(1))
        #expect(g.complete(2))
        // Never more than four, however a feed misbehaves.
        g.late(10, after: 2)
        #expect(g.complete(4))
    }

    @Test("the sleep grows to cover the epoch's reports, never past the next epoch; a replay's times shrink")
    func learnsTheSpread() {
        var g = EpochGather(speed: 1)
        #expect(g.sleep == EpochGather.initial)
        g.took(0.72)
        #expect(abs(g.sleep - 0.792) < 1e-9)
        g.took(0.3)
        #expect(abs(g.sleep - 0.792) < 1e-9)
        g.took(5)
        #expect(g.sleep == EpochGather.longest)
        #expect(g.deadline == EpochGather.patience)
        let fast = EpochGather(speed: 40)
        #expect(abs(fast.sleep - EpochGather.initial / 40) < 1e-12)
        // A fast replay's feed stalls with the machine: the patience has a floor in real seconds.
        #expect(fast.deadline == EpochGather.leastPatience)
    }
}

extension EpochGatherTests {
    @Test("a receiver of 5 epochs a second gets a sleep under its interval; gaps and repeats teach nothing")
    func fasterReceiver() {
        var g = EpochGather(speed: 1)
        g.handedOver(receiverTime: 100.0)
        g.handedOver(receiverTime: 100.0)
        g.handedOver(receiverTime: 103.0)
        #expect(g.interval == 1)
        #expect(g.sleep == EpochGather.initial)
        for i in 1...5 { g.handedOver(receiverTime: 103.0 + 0.2 * Double(i)) }
        #expect(abs(g.interval - 0.2) < 1e-9)
        #expect(g.sleep <= EpochGather.longest * 0.2 + 1e-12)
        #expect(abs(g.deadline - EpochGather.patience * 0.2) < 1e-9)
        g.took(5)
        #expect(g.sleep <= EpochGather.longest * 0.2 + 1e-12)
    }
}

/// The replay's clock never runs further ahead of the IMU reader than its FIFO holds.
@Suite("Engine clock and reader")
struct EngineClockReaderTests {
    @Test("an early receiver report pulls the clock forward no further than the reader's lead")
    func earlyReportHeldByReader() {
        let clock = EngineClock(speed: 40, followReceiver: true)
        let t0 = clock.observeReceiver(time: 1000)
        clock.readerCaughtUp(to: t0, lead: 0.1)
        // Receiver time 1010 arrives long before the engine reaches it:
        // the pacing alone would step the clock on by maxStep (0.5 s).
        _ = clock.observeReceiver(time: 1010)
        let now = clock.now()
        #expect(now <= t0 + 0.1 + 1e-9)
    }
}

extension EpochGatherTests {
    @Test("a second TPV seen once is unlearned after three epochs that went with one")
    func unlearnsTheCount() {
        var g = EpochGather(speed: 1)
        g.late(1, after: 1)
        #expect(!g.complete(1))
        g.went(with: 1)
        g.went(with: 1)
        #expect(!g.complete(1), "two short epochs are not yet a pattern")
        g.went(with: 1)
        #expect(g.complete(1))
        // An epoch that brings what is expected starts the count over.
        g.late(1, after: 1)
        g.went(with: 1)
        g.went(with: 2)
        g.went(with: 1)
        g.went(with: 1)
        #expect(!g.complete(1))
    }
}
