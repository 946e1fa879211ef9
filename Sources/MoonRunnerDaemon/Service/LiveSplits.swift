import MoonRunnerCore

/// The live session's splits in the configured units, found point by point
/// by the same tracker `show` runs over the stored track, so that the split
/// announced and the split listed agree. Outside a session nothing is found.
struct LiveSplits: Sendable {
    let units: UnitSystem
    private var tracker: SplitTracker?

    init(units: UnitSystem) {
        self.units = units
    }

    /// A session started at `start` (engine seconds), split every `unitsPerSplit` km or miles.
    mutating func start(at start: Double, unitsPerSplit: Int) {
        tracker = SplitTracker(units: units, start: start, unitsPerSplit: unitsPerSplit)
    }

    /// A session resumed after a restart: the tracker sees the stored track
    /// first, so that the next split it finds is the next one of the session.
    mutating func resume(start: Double, unitsPerSplit: Int, replaying points: [TrackPoint]) {
        var tracker = SplitTracker(units: units, start: start, unitsPerSplit: unitsPerSplit)
        let none = PausedTime([])
        for p in points { tracker.add(p, paused: none) { _ in } }
        self.tracker = tracker
    }

    mutating func stop() {
        tracker = nil
    }

    /// The splits `point` closes (usually none); `pauses` are the session's as
    /// known now, for the moving time.
    mutating func add(_ point: TrackPoint, pauses: [PauseInterval]) -> [Split] {
        guard tracker != nil else { return [] }
        var found: [Split] = []
        tracker?.add(point, paused: PausedTime(pauses)) { found.append($0) }
        return found
    }
}
