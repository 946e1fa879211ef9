/// What waits to be spoken. An announcement that could not start within
/// `maxDelay` seconds of its arrival (a slow sound device, a long sentence
/// before it, a burst after a reconnect) is dropped, never read out late.
public struct SpeechQueue: Sendable {
    public let maxDelay: Double
    /// More than this many waiting means the speaker is stuck: the oldest go.
    public let capacity: Int
    private var items: [Announcement] = []

    public init(maxDelay: Double, capacity: Int = 16) {
        self.maxDelay = maxDelay
        self.capacity = capacity
    }

    public var count: Int { items.count }
    public var isEmpty: Bool { items.isEmpty }

    /// Queues in order; returns what had to make room.
    @discardableResult
    public mutating func push(_ new: [Announcement]) -> [Announcement] {
        items += new
        guard items.count > capacity else { return [] }
        let dropped = Array(items.prefix(items.count - capacity))
        items.removeFirst(items.count - capacity)
        return dropped
    }

    /// The oldest announcement still fresh at `now` (monotonic seconds), and
    /// the stale ones skipped on the way to it.
    public mutating func next(at now: Double) -> (next: Announcement?, dropped: [Announcement]) {
        var dropped: [Announcement] = []
        while let first = items.first {
            items.removeFirst()
            if isStale(first, at: now) {
                dropped.append(first)
            } else {
                return (first, dropped)
            }
        }
        return (nil, dropped)
    }

    /// True when it is too late to say `a`.
    public func isStale(_ a: Announcement, at now: Double) -> Bool {
        now - a.receivedAt > maxDelay
    }

    /// Empties the queue (quiet was asked for); returns what was waiting.
    public mutating func clear() -> [Announcement] {
        defer { items.removeAll() }
        return items
    }
}
