/// Moving time inside a window of a session: the window minus the parts of
/// it that fall inside pauses. Splits, laps and calories all need it.
public struct PausedTime: Sendable {
    /// Closed and open pauses, sorted by start; an open pause (NaN end) runs on forever.
    private let starts: [Double]
    private let ends: [Double]

    public init(_ pauses: [PauseInterval]) {
        let sorted = pauses.filter { $0.start.isFinite }.sorted { $0.start < $1.start }
        starts = sorted.map(\.start)
        ends = sorted.map { $0.end.isFinite ? max($0.end, $0.start) : .infinity }
    }

    /// Seconds of `[from, to]` spent paused.
    public func paused(from: Double, to: Double) -> Double {
        guard to > from else { return 0 }
        var total = 0.0
        for i in starts.indices {
            if starts[i] >= to { break }
            let overlap = min(ends[i], to) - max(starts[i], from)
            if overlap > 0 { total += overlap }
        }
        return total
    }

    /// Seconds of `[from, to]` not paused.
    public func moving(from: Double, to: Double) -> Double {
        guard to > from else { return 0 }
        return max(0, to - from - paused(from: from, to: to))
    }

    /// The end of the pause that instant `t` lies inside (starting at or
    /// before it); nil when `t` is not paused or that pause is still open.
    public func end(ofPauseAt t: Double) -> Double? {
        for i in starts.indices {
            if starts[i] > t { break }
            if t < ends[i] { return ends[i].isFinite ? ends[i] : nil }
        }
        return nil
    }

    /// True when instant `t` lies inside a pause.
    public func isPaused(at t: Double) -> Bool {
        for i in starts.indices {
            if starts[i] > t { break }
            if t < ends[i] { return true }
        }
        return false
    }
}
