import Testing
@testable import MoonRunnerSensors

/// A replay's clock keeps pace with the GPS feed (pure: times passed in).
@Suite("Receiver pacing")
struct ReceiverPacingTests {
    @Test("the clock waits for a slow feed, a little while at most, and is pulled along by an early one")
    func pacing() {
        var p = ReceiverPacing()
        // First report: receiver 1000.0 at engine 10.0, real 0.
        #expect(p.observe(receiverTime: 1000, engine: 10, real: 0) == 10)
        #expect(p.offset == 990)
        #expect(p.engineTime(of: 1003) == 13)
        // The clock may run one report interval past the receiver (and the client's read lead), no further...
        let lead = ReceiverPacing.readLead
        #expect(p.limit(10.5, real: 0.05) == 10.5)
        #expect(p.limit(12, real: 0.1) == 11 + lead)
        // ...until the feed has been silent for maxStall (it stopped: the daemon goes on).
        #expect(p.limit(12, real: ReceiverPacing.maxStall + 0.01) == 12)
        // The next report lifts the ceiling.
        #expect(p.observe(receiverTime: 1001, engine: 11, real: 0.2) == 11)
        #expect(p.limit(11.9, real: 0.25) == 11.9)
        #expect(p.limit(13, real: 0.25) == 12 + lead)
        // A report that comes early pulls the clock forward, maxStep at a time.
        #expect(p.observe(receiverTime: 1003, engine: 11.5, real: 0.3) == 11.5 + ReceiverPacing.maxStep)
    }

    @Test("a receiver time that jumps (a log replayed from its start) is taken afresh")
    func restart() {
        var p = ReceiverPacing()
        _ = p.observe(receiverTime: 5000, engine: 10, real: 0)
        _ = p.observe(receiverTime: 5001, engine: 11, real: 0.05)
        #expect(p.observe(receiverTime: 1000, engine: 12, real: 0.1) == 12)
        #expect(p.offset == 988)
        #expect(p.limit(12.5, real: 0.12) == 12.5)
    }
}
