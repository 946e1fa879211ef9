/// A session's pauses, oldest first, and the seconds the closed ones add up
/// to, kept as each one closes so that moving time costs O(1) per sample. The
/// last pause is open (its end NaN) while the session rests.
public struct SessionPauses: Sendable, Equatable {
    public private(set) var intervals: [PauseInterval]
    /// Seconds in the closed pauses.
    private var closed: Double

    public init(_ intervals: [PauseInterval] = []) {
        self.intervals = intervals
        closed = intervals.reduce(0) { $0 + ($1.end.isNaN ? 0 : $1.end - $1.start) }
    }

    /// A session carried on after the daemon was away from `lastTime` to
    /// `now`: a pause open then ends there, and the time away is a pause of its
    /// own (nobody knows what happened in it).
    public init(resuming intervals: [PauseInterval], lastTime: Double, now: Double) {
        var pauses = intervals
        if let last = pauses.last, last.end.isNaN { pauses[pauses.count - 1].end = lastTime }
        if now > lastTime { pauses.append(PauseInterval(start: lastTime, end: now, detectedAt: now, automatic: true)) }
        self.init(pauses)
    }

    /// A pause begins (open until `close`).
    public mutating func open(_ pause: PauseInterval) {
        intervals.append(pause)
    }

    /// The last pause becomes the wearer's own, from when it began (they
    /// pressed pause while the session had stopped by itself).
    public mutating func ownLast() {
        guard let i = intervals.indices.last else { return }
        intervals[i].automatic = false
    }

    /// The open pause ends at `t` (never before it began); nothing when none is open.
    public mutating func close(at t: Double) {
        guard let i = intervals.indices.last, intervals[i].end.isNaN else { return }
        intervals[i].end = max(t, intervals[i].start)
        closed += intervals[i].end - intervals[i].start
    }

    /// Seconds paused up to `now`: the closed pauses and the open one so far.
    public func paused(at now: Double) -> Double {
        var paused = closed
        if let open = intervals.last, open.end.isNaN { paused += max(0, now - open.start) }
        return paused
    }
}
