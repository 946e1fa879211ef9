/// The seed gates in front of the GPS filter: whether a fix can be used at
/// all, and where it lies on the receiver's clock.
///
/// A fix without a position, or at 0,0, is refused. One without time (gpsd's
/// first of a session) is placed through the smallest delay seen between a
/// fix's receiver time and its arrival. The clocks differ by an unknown offset,
/// so a fix is stale when it arrives more than `maxAge` later than the
/// quickest; one at the last one's time is a duplicate, earlier out of order.
/// Five refused fixes whose delays agree within 2 s mean the receiver's clock
/// moved (a restart, a week-number fix-up): taken, the track starts afresh; a
/// draining backlog's never agree. Then the first fix after a start or a loss
/// is dropped, one above `maxAccuracy` (95 %) refused. O(1); arrival passed in.
struct FixGate: Sendable, Equatable {
    /// What the gate made of one fix.
    struct Verdict: Sendable, Equatable {
        /// The fix's instant on the receiver's clock, or why it is refused.
        var time: Result<Double, FixRejection>
        /// The receiver's clock jumped for good with this fix: whatever
        /// `time` says, the track before it no longer applies.
        var clockJumped = false
    }

    /// Receiver time of the last fix that passed the order checks.
    private var lastFixTime = -Double.infinity
    /// The smallest delay seen between a fix's receiver time and its arrival, s.
    private var minLatency = Double.infinity
    private var firstDropped = false
    /// Refused fixes in a row that agree on a different delay.
    private var jumpRun = 0
    private var jumpLatency = Double.nan

    /// The next fix with a position is a first fix again (after a loss of
    /// fix or a restart); the clock is kept.
    mutating func expectFirstFix() {
        firstDropped = false
    }

    /// Judges one fix that arrived at engine time `now`; `r95` is its 95 %
    /// horizontal error in metres (NaN when unknown). The limits are the
    /// filter config's seed gates (passed one by one: the filter's hot path
    /// copies no config).
    mutating func check(_ fix: GPSFix, at now: Double, r95: Double, maxAge: Double, maxAccuracy: Double,
                        dropFirstFix: Bool) -> Verdict {
        guard fix.hasPosition else {
            if fix.mode >= 0 && fix.mode < 2 { firstDropped = false }
            return Verdict(time: .failure(.noFix))
        }
        if abs(fix.latitude) < 1e-6 && abs(fix.longitude) < 1e-6 { return Verdict(time: .failure(.nullIsland)) }
        guard let t = receiverTime(of: fix, at: now) else { return Verdict(time: .failure(.noTime)) }
        var verdict = Verdict(time: .success(t))
        let latency = now - t
        if t == lastFixTime { return Verdict(time: .failure(.duplicate)) }
        if t < lastFixTime || latency - minLatency > maxAge {
            guard clockJumped(latency: latency) else { return Verdict(time: .failure(t < lastFixTime ? .outOfOrder : .stale)) }
            minLatency = latency
            lastFixTime = -.infinity
            verdict.clockJumped = true
        } else {
            jumpRun = 0
        }
        if latency.isFinite { minLatency = min(minLatency, latency) }
        lastFixTime = t
        if dropFirstFix && !firstDropped {
            firstDropped = true
            verdict.time = .failure(.firstFix)
        } else if r95.isFinite && r95 > maxAccuracy {
            verdict.time = .failure(.poorAccuracy)
        }
        return verdict
    }

    /// The fix's own time, or its arrival less the smallest delay seen.
    private func receiverTime(of fix: GPSFix, at now: Double) -> Double? {
        if fix.time.isFinite { return fix.time }
        return minLatency.isFinite ? now - minLatency : nil
    }

    /// True on the fifth refused fix in a row (out of order or stale) whose
    /// delays agree within 2 s.
    private mutating func clockJumped(latency: Double) -> Bool {
        guard latency.isFinite else { return false }
        if jumpRun > 0 && abs(latency - jumpLatency) <= 2 {
            jumpRun += 1
        } else {
            jumpRun = 1
        }
        jumpLatency = latency
        if jumpRun >= 5 {
            jumpRun = 0
            return true
        }
        return false
    }
}

/// A refusal is the failure of `FixGate.Verdict.time`.
extension FixRejection: Error {}
