/// A token bucket per client: `perSecond` requests a second on average,
/// bursts of up to `perSecond` at once. Time comes in from outside (a
/// monotonic clock), so it is a pure value.
struct RateLimiter: Sendable {
    let perSecond: Double
    private var tokens: Double
    private var last = -Double.infinity

    init(perSecond: Double) {
        self.perSecond = perSecond
        tokens = perSecond
    }

    mutating func allow(at now: Double) -> Bool {
        if last.isFinite { tokens = min(perSecond, tokens + max(0, now - last) * perSecond) }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
