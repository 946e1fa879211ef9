/// The fault bookkeeping a sensor service keeps for its device, the same for
/// every chip on the bus: when it last delivered, when it last failed, how many
/// reads failed in a row, and when to try initialising it again (the wait
/// doubles after each failure, up to a ceiling, and starts over once the device
/// delivers). Health follows from it: `lost` without a device or without data
/// for `lostAfter`, `degraded` for `degradedHold` after a fault, else `ok`.
struct DeviceRecovery {
    struct Policy {
        var initialBackoff: Double
        var maxBackoff: Double
        var degradedHold: Double
        var lostAfter: Double
        var maxConsecutiveFaults: Int
    }

    let policy: Policy
    private var backoff: Double
    private var nextAttempt = -Double.infinity
    private var consecutiveFaults = 0
    private var lastData: Double
    private var lastFault = -Double.infinity

    init(policy: Policy, now: Double) {
        self.policy = policy
        backoff = policy.initialBackoff
        lastData = now
    }

    /// `connected`: a device is initialised and its recording has not ended.
    func health(at t: Double, connected: Bool) -> IMUHealth {
        if !connected || t - lastData > policy.lostAfter { return .lost }
        if t - lastFault < policy.degradedHold { return .degraded }
        return .ok
    }

    /// How long to wait before the next initialisation may be tried (nil: now).
    func wait(at now: Double) -> Double? {
        now < nextAttempt ? nextAttempt - now : nil
    }

    /// The device was initialised: it has until `lostAfter` to deliver.
    mutating func connected(at t: Double) {
        lastData = t
    }

    /// A fault that is not a failed read (an initialisation, stuck data).
    mutating func fault(at t: Double) {
        lastFault = t
    }

    /// A failed or untrustworthy read; true when there have now been too many in a row.
    mutating func readFailed(at t: Double) -> Bool {
        consecutiveFaults += 1
        lastFault = t
        return consecutiveFaults >= policy.maxConsecutiveFaults
    }

    mutating func readSucceeded() {
        consecutiveFaults = 0
    }

    /// The device delivered data: it is alive, and the next failure waits the shortest time again.
    mutating func delivered(at t: Double) {
        lastData = t
        backoff = policy.initialBackoff
    }

    /// The device is dropped: the next initialisation waits the current back-off, which then doubles.
    mutating func scheduleReinit(at t: Double) {
        consecutiveFaults = 0
        nextAttempt = t + backoff
        backoff = min(backoff * 2, policy.maxBackoff)
    }
}
