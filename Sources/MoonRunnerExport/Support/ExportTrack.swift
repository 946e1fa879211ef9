import MoonRunnerCore

/// Per-point figures the writers share, computed once per export: distance
/// along the track and cadence at each point.
struct ExportTrack {
    let distance: TrackDistance
    /// Steps per minute (both feet) at each point; 0 when no steps were counted near it.
    let cadence: [Double]
    /// True when the session has any step data (then cadence is written).
    let hasCadence: Bool

    init(_ session: ExportSession) {
        distance = TrackDistance(points: session.points)
        hasCadence = !session.stepSeconds.isEmpty
        cadence = ExportTrack.cadence(points: session.points, seconds: session.stepSeconds)
    }

    /// Cadence at each point: the latest per-second sample at most
    /// `maxAge` seconds before the point's second (its stored cadence, or
    /// that second's steps × 60 when the estimate was not yet available).
    static func cadence(points: [TrackPoint], seconds: [StepSecondSample], maxAge: Int64 = 2) -> [Double] {
        var out = [Double](repeating: 0, count: points.count)
        guard !seconds.isEmpty else { return out }
        var j = -1
        for i in points.indices {
            guard points[i].time.isFinite else { continue }
            let second = Int64(points[i].time.rounded(.down))
            if j >= 0 && seconds[j].second > second { j = -1 }  // points out of order: search again
            while j + 1 < seconds.count && seconds[j + 1].second <= second { j += 1 }
            guard j >= 0, second - seconds[j].second <= maxAge else { continue }
            let c = seconds[j].cadence
            out[i] = c.isFinite && c > 0 ? c : Double(seconds[j].steps) * 60
        }
        return out
    }

    /// A point's heart rate as the formats write it: whole bpm, 1–255; nil when missing.
    static func heartRate(_ p: TrackPoint) -> Int? {
        guard p.heartRate.isFinite, p.heartRate >= 0.5 else { return nil }
        return min(255, Int(p.heartRate.rounded()))
    }

    /// A summary's heart rate as the formats write it (whole bpm, 1–255), nil when none.
    static func wholeBPM(_ bpm: Double?) -> Int? {
        guard let bpm, bpm.isFinite, bpm >= 0.5 else { return nil }
        return min(255, Int(bpm.rounded()))
    }

    /// Garmin-style cadence: per-foot cycles per minute (strides/min), i.e.
    /// half the step rate, rounded and limited to the 0...254 of the formats.
    static func strideCadence(_ stepsPerMinute: Double) -> Int {
        guard stepsPerMinute.isFinite, stepsPerMinute > 0 else { return 0 }
        return min(254, Int((stepsPerMinute / 2).rounded()))
    }
}
