/// Splits found one track point at a time: the live daemon feeds it each
/// accepted point and announces a split the moment its mark is crossed,
/// and `Splits.compute` runs the same tracker over a stored track, so the
/// live split and the one `show` lists agree by construction.
public struct SplitTracker: Sendable {
    public let units: UnitSystem
    /// Splits closed so far.
    public private(set) var count = 0
    /// Metres counted so far (only inside moving stretches, as `TrackDistance`).
    public private(set) var total = 0.0

    private let unit: Double
    private var mark: Double
    private var start: Double?
    private var splitStart = Double.nan
    private var splitStartAltitude = Double.nan
    private var previous: TrackPoint?
    private var lastAltitude = Double.nan

    /// `start` is when the session started (default: the first point), so
    /// that waiting for the first fix belongs to split 1; a split is
    /// `unitsPerSplit` km or miles long (the activity's `splitUnits`: a
    /// ride's is 5).
    public init(units: UnitSystem, start: Double? = nil, unitsPerSplit: Int = 1) {
        self.units = units
        unit = units.metresPerUnit * Double(max(1, unitsPerSplit))
        mark = unit
        self.start = start
    }

    /// Takes the next accepted point and reports every split whose mark it
    /// crossed (usually none, at most a few on a long gap). `paused` holds
    /// the session's pauses as known now: moving time is taken from it.
    public mutating func add(_ point: TrackPoint, paused: PausedTime, emit: (Split) -> Void) {
        defer {
            previous = point
            if point.altitude.isFinite { lastAltitude = point.altitude }
        }
        guard let a = previous else {
            splitStart = min(start ?? point.time, point.time)
            splitStartAltitude = point.altitude
            // A track that carries the session's distance starts where that count stands.
            total = point.distance.isFinite ? point.distance : 0
            return
        }
        if splitStartAltitude.isNaN && count == 0 { splitStartAltitude = point.altitude }
        let d0 = total
        let d1 = total + TrackDistance.increment(from: a, to: point)
        total = d1
        // No mark is placed inside the jump to a new stretch (the distance still counts).
        guard d1 > d0, !point.newSegment else { return }
        while d1 >= mark {
            let f = (mark - d0) / (d1 - d0)
            let t = a.time + f * (point.time - a.time)
            emit(close(at: t, altitude: TrackDistance.mix(a.altitude, point.altitude, f), distance: unit,
                       cumulative: mark, partial: false, paused: paused))
            mark += unit
        }
    }

    /// The final, shorter-than-a-unit split ending at `end` (default: the
    /// last point), or nil when less than `minimumPartial` metres are left.
    public func partial(end: Double? = nil, paused: PausedTime, minimumPartial: Double = 1) -> Split? {
        guard let last = previous else { return nil }
        let rest = total - (mark - unit)
        guard rest >= minimumPartial else { return nil }
        var copy = self
        return copy.close(at: max(end ?? last.time, splitStart), altitude: lastAltitude, distance: rest,
                          cumulative: total, partial: true, paused: paused)
    }

    private mutating func close(at t: Double, altitude: Double, distance: Double, cumulative: Double,
                                partial: Bool, paused: PausedTime) -> Split {
        count += 1
        // The first split starts when the wearer sets off: a pause the
        // session opened with (standing at the start, auto-paused) belongs to
        // no kilometre, so its time and its pace agree as every other's do.
        if count == 1, let end = paused.end(ofPauseAt: splitStart) { splitStart = min(max(splitStart, end), t) }
        let split = Split(number: count, units: units, distance: distance, cumulativeDistance: cumulative,
                          isPartial: partial, startTime: splitStart, endTime: t, elapsed: max(0, t - splitStart),
                          moving: paused.moving(from: splitStart, to: t),
                          elevationChange: altitude - splitStartAltitude)
        splitStart = t
        splitStartAltitude = altitude
        return split
    }
}
