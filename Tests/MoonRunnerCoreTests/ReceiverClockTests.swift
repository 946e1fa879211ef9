import Testing
@testable import MoonRunnerCore

@Suite("Receiver clock (UTC from the GPS)")
struct ReceiverClockTests {
    @Test("the least-delayed fix sets the offset; late fixes do not move it")
    func leastDelayed() {
        var c = ReceiverClock()
        #expect(c.offset == nil)
        #expect(c.utc(100) == 100, "without a fix the engine clock is all there is")
        // Engine clock booted in 1970-ish; the receiver says 2024; latencies 0.3–0.9 s.
        let truth = 1_715_000_000.0
        for (i, latency) in [0.9, 0.4, 0.3, 0.7, 0.5].enumerated() {
            c.observe(receiverTime: truth + Double(i), arrival: Double(i) + latency)
        }
        #expect(c.offset == truth - 0.3)
        #expect(c.utc(10) == truth + 10 - 0.3)
    }

    @Test("a receiver clock that moved for good is followed after five fixes, a single odd one is not")
    func jumps() {
        var c = ReceiverClock()
        c.observe(receiverTime: 1000, arrival: 0)
        c.observe(receiverTime: 1001 - 1024 * 7 * 86_400, arrival: 1)
        #expect(c.offset == 1000)
        for i in 2..<6 { c.observe(receiverTime: 1000 + Double(i), arrival: Double(i)) }
        #expect(c.offset == 1000)
        // A week-number roll-over: every fix from now on is 1024 weeks back.
        for i in 6..<11 { c.observe(receiverTime: 1000 + Double(i) - 1024 * 7 * 86_400, arrival: Double(i)) }
        let rollover = 1024.0 * 7 * 86_400
        #expect(abs((c.offset ?? 0) - (1000 - rollover)) < 1e-6, "\(String(describing: c.offset))")
    }
}
