import Testing
@testable import MoonRunnerSensors

/// The fault bookkeeping both sensor services share.
@Suite("Device recovery")
struct DeviceRecoveryTests {
    let policy = DeviceRecovery.Policy(initialBackoff: 0.5, maxBackoff: 2, degradedHold: 5, lostAfter: 2,
                                       maxConsecutiveFaults: 3)

    @Test("the wait before re-initialising doubles up to its ceiling and starts over once the device delivers")
    func backoff() {
        var r = DeviceRecovery(policy: policy, now: 0)
        #expect(r.wait(at: 0) == nil)
        var waits: [Double] = []
        var t = 0.0
        for _ in 0..<4 {
            r.scheduleReinit(at: t)
            waits.append(r.wait(at: t) ?? 0)
            t += 10
        }
        #expect(waits == [0.5, 1, 2, 2])
        #expect(r.wait(at: t) == nil)
        r.delivered(at: t)
        r.scheduleReinit(at: t)
        #expect(r.wait(at: t) == 0.5)
        #expect(r.wait(at: t + 0.25) == 0.25)
        #expect(r.wait(at: t + 0.5) == nil)
    }

    @Test("too many failed reads in a row, not failures with successes between")
    func consecutiveFaults() {
        var r = DeviceRecovery(policy: policy, now: 0)
        var verdicts = [r.readFailed(at: 1), r.readFailed(at: 2)]
        r.readSucceeded()
        verdicts += [r.readFailed(at: 3), r.readFailed(at: 4), r.readFailed(at: 5)]
        #expect(verdicts == [false, false, false, false, true])
        r.scheduleReinit(at: 5)
        let afterReinit = r.readFailed(at: 6)
        #expect(!afterReinit)
    }

    @Test("health: lost without a device or data, degraded after a fault, then ok")
    func health() {
        var r = DeviceRecovery(policy: policy, now: 0)
        #expect(r.health(at: 1, connected: false) == .lost)
        #expect(r.health(at: 1, connected: true) == .ok)
        #expect(r.health(at: 2.5, connected: true) == .lost)
        r.connected(at: 10)
        r.fault(at: 10)
        r.delivered(at: 11)
        #expect(r.health(at: 12, connected: true) == .degraded)
        r.delivered(at: 15.5)
        #expect(r.health(at: 16, connected: true) == .ok)
    }
}
