/// One kilometre (or mile; five of them on a ride) of a session: the
/// wearer's usual yardstick of how a run went. The instant a split ends is interpolated between the two
/// track points either side of the mark, so 1 Hz fixes give split times to a
/// fraction of a second.
public struct Split: Sendable, Equatable, Codable {
    /// 1-based.
    public var number: Int
    public var units: UnitSystem
    /// Metres in this split: its length, less for a final partial split.
    public var distance: Double
    /// Metres from the start of the session to the end of this split.
    public var cumulativeDistance: Double
    /// True for the last, shorter-than-a-unit split.
    public var isPartial: Bool
    public var startTime: Double
    public var endTime: Double
    /// Wall-clock seconds of the split, pauses included.
    public var elapsed: Double
    /// Seconds of the split outside pauses.
    public var moving: Double
    /// Altitude at the end minus altitude at the start, metres; NaN when unknown.
    public var elevationChange: Double

    public init(number: Int, units: UnitSystem, distance: Double, cumulativeDistance: Double, isPartial: Bool,
                startTime: Double, endTime: Double, elapsed: Double, moving: Double, elevationChange: Double) {
        self.number = number
        self.units = units
        self.distance = distance
        self.cumulativeDistance = cumulativeDistance
        self.isPartial = isPartial
        self.startTime = startTime
        self.endTime = endTime
        self.elapsed = elapsed
        self.moving = moving
        self.elevationChange = elevationChange
    }

    /// Average speed over moving time, m/s.
    public var averageSpeed: Double { moving > 0 ? distance / moving : 0 }
    /// Seconds per unit (km or mile) over moving time; NaN when not moving.
    public var pace: Double { averageSpeed > 0.05 ? units.metresPerUnit / averageSpeed : .nan }
}

/// Splits of a recorded track.
public enum Splits {
    /// Splits of `points` per km (metric) or mile (imperial), or per
    /// `unitsPerSplit` of them.
    ///
    /// Distance counts only inside moving stretches (see `TrackDistance`).
    /// `start` is when the session started (default: the first point), so
    /// that waiting for the first fix belongs to split 1; `end` is when the
    /// final partial split ends (default: the last point). A final partial
    /// split shorter than `minimumPartial` metres is dropped.
    public static func compute(points: [TrackPoint], pauses: [PauseInterval], units: UnitSystem,
                               start: Double? = nil, end: Double? = nil,
                               minimumPartial: Double = 1, unitsPerSplit: Int = 1) -> [Split] {
        guard let first = points.first else { return [] }
        let paused = PausedTime(pauses)
        var tracker = SplitTracker(units: units, start: start ?? first.time, unitsPerSplit: unitsPerSplit)
        var splits: [Split] = []
        for p in points { tracker.add(p, paused: paused) { splits.append($0) } }
        if let last = tracker.partial(end: end, paused: paused, minimumPartial: minimumPartial) { splits.append(last) }
        return splits
    }
}
