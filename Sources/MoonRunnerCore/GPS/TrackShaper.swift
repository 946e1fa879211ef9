import Glibc

/// Places the recorded track so that its length is the distance the session
/// counted: what a site recomputes from an uploaded GPX is what the wearer saw.
/// A line through the filter's positions, a metre or two of jitter each, is
/// 2–5 % longer than the path, and standing adds whatever the anchor wanders.
///
/// Each point moves the track by exactly the distance its fix added, along
/// the filter's direction, turned towards its position by `correctionGain` of
/// the sideways error. Fixes that add no distance write nothing. A pause ends
/// a stretch and the next starts where the track stopped, with a point at the
/// resume, so readers that join stretches (gpsbabel, TCX) and those that don't
/// (gpxpy, GPX) measure the same length; only a break of the filter's own
/// moves the track, uncounted. O(1): one call per filter point, two points out at most.
public struct TrackShaper: Sendable {
    /// Share of the sideways gap to the filter's position closed per fix.
    public var correctionGain = 0.3
    /// The track's position: its last written point (kept across pauses).
    private var position: TrackPoint?
    /// True while a stretch is open (recording went on since `position` was written).
    private var open = false
    /// Where the track would start without a position: the filter's latest point.
    private var start: TrackPoint?
    /// When recording last (re)started: a stretch's first point is not placed before it.
    private var recordingSince = -Double.infinity
    /// The filter's next segment break is the engine's own (start, manual resume).
    private var ownBreak = false

    public init() {}

    /// Recording (re)starts at `t`; `segmentBreak` when the engine also broke the
    /// filter's segment (its next point is flagged, and that is no GPS gap).
    public mutating func resume(at t: Double, segmentBreak: Bool) {
        recordingSince = t
        open = false
        ownBreak = segmentBreak
    }

    /// One point of the filter. `added` is the distance its fix added (counted
    /// only while `recording`), `total` the session's distance after it.
    /// Returns the points to write, in order: a stretch's first point and/or this one.
    public mutating func place(_ point: TrackPoint, added: Double, total: Double,
                               recording: Bool) -> (TrackPoint?, TrackPoint?) {
        if point.newSegment {
            if ownBreak {
                ownBreak = false
            } else {
                // The filter lost the thread: the track moves to where it starts again.
                position = nil
                open = false
            }
        }
        if !recording { open = false }
        guard recording, added > 0 else {
            if position == nil { start = point }
            return (nil, nil)
        }
        var opened: TrackPoint?
        if !open {
            // A stretch opens where the track is, or where the filter last put the wearer.
            guard var s = position ?? start else {
                var p = point
                p.newSegment = true
                p.distance = total
                position = p
                open = true
                return (p, nil)
            }
            s.newSegment = true
            s.time = min(max(s.time, recordingSince), point.time)
            s.speed = 0
            s.distance = total - added
            opened = s
            position = s
            open = true
        }
        guard let from = position else { return (opened, nil) }
        var p = point
        p.newSegment = false
        p.distance = total
        (p.latitude, p.longitude) = step(from: from, towards: point, by: added)
        position = p
        start = nil
        return (opened, p)
    }

    /// The position `length` metres from `from`, heading where `target` travels,
    /// turned towards `target` by `correctionGain` of the sideways gap.
    private func step(from: TrackPoint, towards target: TrackPoint, by length: Double) -> (Double, Double) {
        let plane = LocalTangentPlane(originLat: from.latitude, originLon: from.longitude)
        let (te, tn) = plane.project(lat: target.latitude, lon: target.longitude)
        var ue: Double, un: Double
        if target.speed > 0.3, target.course.isFinite {
            let c = target.course * .pi / 180
            (ue, un) = (sin(c), cos(c))
            // Sideways part of the gap between where the step would land and the target.
            let ge = te - length * ue, gn = tn - length * un
            let along = ge * ue + gn * un
            let se = ge - along * ue, sn = gn - along * un
            (ue, un) = (length * ue + correctionGain * se, length * un + correctionGain * sn)
        } else {
            // No direction of travel: head for the filter's position.
            (ue, un) = (te, tn)
        }
        let norm = hypot(ue, un)
        guard norm > 1e-9 else { return (target.latitude, target.longitude) }
        let (lat, lon) = plane.unproject(east: length * ue / norm, north: length * un / norm)
        return (lat, lon)
    }
}
