/// The wait before reconnecting to the daemon: 0.25 s after the first
/// failure, doubling to 5 s, and 0.25 s again once the daemon answered
/// (the announcer's `WatchLoop` waits the same). A value: time is the
/// caller's.
public struct Backoff: Sendable, Equatable {
    public static let first = 0.25
    public static let longest = 5.0
    private var next = Backoff.first

    public init() {}

    /// The wait after a failure; the one after it is twice as long, up to `longest`.
    public mutating func wait() -> Double {
        defer { next = min(next * 2, Self.longest) }
        return next
    }

    /// The daemon answered: the next outage starts again from `first`.
    public mutating func reset() {
        self = Backoff()
    }
}
