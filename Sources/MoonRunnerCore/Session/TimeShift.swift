/// Moving a session's times from the engine clock to UTC.
///
/// A session is recorded on the engine clock, a stopwatch that never jumps;
/// what leaves the daemon (replies, exports, hooks) is in UTC, the engine
/// time plus the offset the receiver taught (`SessionSnapshot.utcOffset`).
/// One shift for every time of the session keeps their order and every
/// duration exactly as recorded.
public protocol TimeShiftable {
    /// The same value with every instant moved by `offset` seconds.
    func shifted(by offset: Double) -> Self
}

extension TimeShiftable {
    /// Shifted by `offset` when there is one.
    public func shifted(by offset: Double?) -> Self {
        guard let offset, offset != 0 else { return self }
        return shifted(by: offset)
    }
}

extension SessionStats: TimeShiftable {
    public func shifted(by offset: Double) -> SessionStats {
        var s = self
        s.startTime += offset
        return s
    }
}

extension PauseInterval: TimeShiftable {
    public func shifted(by offset: Double) -> PauseInterval {
        PauseInterval(start: start + offset, end: end + offset, detectedAt: detectedAt + offset, automatic: automatic)
    }
}

extension SessionEvent: TimeShiftable {
    public func shifted(by offset: Double) -> SessionEvent {
        var e = self
        e.time += offset
        e.detectedAt += offset
        return e
    }
}

extension TrackPoint: TimeShiftable {
    /// `fixTime` is the receiver's own UTC already and stays as it is.
    public func shifted(by offset: Double) -> TrackPoint {
        var p = self
        p.time += offset
        return p
    }
}

extension StepSecondSample: TimeShiftable {
    /// Whole seconds: shifted by the offset's whole seconds.
    public func shifted(by offset: Double) -> StepSecondSample {
        var s = self
        s.second += Int64(offset.rounded(.down))
        return s
    }
}

extension SessionSnapshot: TimeShiftable {
    /// A copy, so that members without times (the course followed) come along.
    public func shifted(by offset: Double) -> SessionSnapshot {
        var s = self
        s.stats = stats.shifted(by: offset)
        s.pauses = pauses.shifted(by: offset)
        s.lastTime = lastTime + offset
        s.navigation = navigation?.shifted(by: offset)
        return s
    }
}

extension NavigationSnapshot: TimeShiftable {
    public func shifted(by offset: Double) -> NavigationSnapshot {
        var n = self
        n.progressTime = progressTime.map { $0 + offset }
        return n
    }
}

extension Array: TimeShiftable where Element: TimeShiftable {
    public func shifted(by offset: Double) -> [Element] { map { $0.shifted(by: offset) } }
}

extension HeartRatePoint: TimeShiftable {
    public func shifted(by offset: Double) -> HeartRatePoint { HeartRatePoint(time: time + offset, bpm: bpm) }
}

extension RRInterval: TimeShiftable {
    public func shifted(by offset: Double) -> RRInterval { RRInterval(time: time + offset, milliseconds: milliseconds) }
}
