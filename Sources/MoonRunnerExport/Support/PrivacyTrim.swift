import MoonRunnerCore

extension ExportSession {
    /// The session as it may be shown to others: the points at the start and
    /// at the end inside a privacy zone are left out, and all the writers take
    /// is cut to the points kept, as if the recording had begun at the first
    /// point kept and ended at the last. Only the ends are cut: a gap in the
    /// middle would point at the place as well as the points do.
    ///
    /// The totals are those of what is kept: distance rebased to 0, time from
    /// the first to the last point, moving time less the pauses inside, steps
    /// of the seconds inside; climb and descent over the kept (already
    /// smoothed) altitudes with a 2 m band, never above the whole session's.
    /// Unchanged when no end point lies in a zone (the plain export byte for
    /// byte); nil when every point does.
    public func leavingOut(_ zones: [PrivacyZone]) -> ExportSession? {
        guard !zones.isEmpty, !points.isEmpty else { return self }
        var first = points.startIndex, last = points.endIndex - 1
        while first <= last, zones.hide(latitude: points[first].latitude, longitude: points[first].longitude) { first += 1 }
        guard first <= last else { return nil }
        while last > first, zones.hide(latitude: points[last].latitude, longitude: points[last].longitude) { last -= 1 }
        guard first > points.startIndex || last < points.endIndex - 1 else { return self }
        let start = first > points.startIndex ? points[first].time : startTime
        let end = last < points.endIndex - 1 ? points[last].time : endTime
        return trimmed(points: Array(points[first...last]), from: start, to: end)
    }

    private func trimmed(points kept: [TrackPoint], from start: Double, to end: Double) -> ExportSession {
        let inside = { (t: Double) in t >= start && t <= end }
        var points = kept
        let base = points.first.map { $0.distance.isFinite ? $0.distance : 0 } ?? 0
        for i in points.indices where points[i].distance.isFinite { points[i].distance -= base }
        if !points.isEmpty { points[0].newSegment = true }
        let pauses = self.pauses.compactMap { p -> PauseInterval? in
            let e = p.end.isFinite ? min(p.end, end) : p.end
            guard p.start < end, !(e <= start) else { return nil }
            var q = p
            q.start = max(p.start, start)
            q.end = e
            return q
        }
        let steps = stepSeconds.filter { inside(Double($0.second)) }
        var stats = self.stats
        stats.startTime = start
        stats.elapsed = max(0, end - start)
        stats.moving = PausedTime(pauses).moving(from: start, to: end)
        stats.distance = TrackDistance(points: points).total
        stats.steps = steps.reduce(0) { $0 + $1.steps }
        stats.maxSpeed = points.map(\.speed).filter(\.isFinite).max() ?? 0
        stats.points = points.count
        let climb = Self.climb(points)
        stats.elevationGain = min(self.stats.elevationGain, climb.gain)
        stats.elevationLoss = min(self.stats.elevationLoss, climb.loss)
        let events = self.events.filter { inside($0.time) }
        stats.laps = events.filter { $0.kind == .lap }.count
        return ExportSession(id: id, activity: activity, startTime: start, endTime: end, stats: stats, points: points,
                             events: events, pauses: pauses, stepSeconds: steps, calorieModel: calorieModel,
                             title: title, course: course, coursePoints: [],
                             heartRate: heartRate.filter { inside($0.time) },
                             rrIntervals: rrIntervals.filter { inside($0.time) }, heartRateProfile: heartRateProfile)
    }

    /// Gain and loss over the points' altitudes, each counted once the altitude has
    /// moved 2 m from the last turning point.
    static func climb(_ points: [TrackPoint]) -> (gain: Double, loss: Double) {
        var anchor = Double.nan, gain = 0.0, loss = 0.0
        for p in points where p.altitude.isFinite {
            guard anchor.isFinite else { anchor = p.altitude; continue }
            let d = p.altitude - anchor
            if d >= 2 { gain += d; anchor = p.altitude } else if d <= -2 { loss -= d; anchor = p.altitude }
        }
        return (gain, loss)
    }
}
