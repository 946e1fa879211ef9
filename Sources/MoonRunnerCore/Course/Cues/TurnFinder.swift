import Glibc

/// Finds the turns of a course from its shape alone, for a file that names
/// none (a plain GPX track): where the direction changes by `minimumAngle` or
/// more between the `window` metres before a point and those after it.
///
/// Each direction is the chord over its window: a planner's line wanders by a
/// few metres, which turns single segments by 10–20° but a 20 m chord by a few
/// degrees (5.7° at the 90th percentile on the shared courses' straights). A
/// bend of radius r turns the chords apart by window / r radians, 38° at 30 m,
/// so a running track's bend (36.5 m) is never a turn, a street corner always.
/// A turn is the peak of a run of points above the limit, its angle measured
/// up to the neighbouring turns; peaks closer than `joinDistance` are one cue.
/// Turns within `window` of either end are not found. O(length / step), once.
public enum TurnFinder {
    /// Metres before and after a point over which its direction is taken:
    /// long enough to see through a planner's wandering line (a few metres
    /// of offset turn a 20 m chord by under 10°), short enough that a
    /// corner of one street is not blurred into the next one's.
    public static let window = 20.0
    /// Degrees of change that make a turn: a 30 m radius bend changes 38°
    /// over the windows (no turn), a street corner 60–120° (a turn); 40° is
    /// also where the "slight" band of the direction words begins.
    public static let minimumAngle = 40.0
    /// Turns closer than this are said as one cue, metres: at running pace
    /// (3.2 m/s) 30 m is under 10 s, too short to say the second turn on its own.
    public static let joinDistance = 30.0
    /// Changes beyond this either way are a U-turn, whose sign is noise, degrees.
    static let reversal = 170.0
    /// Metres between the points the change is measured at: finer than a
    /// corner's width.
    static let step = 1.0

    /// One turn: where its change peaks (metres along the course) and its
    /// signed angle (degrees, positive to the right).
    struct Turn: Equatable {
        var at: Double
        var angle: Double
        var start: Double
        var end: Double
    }

    /// The turns of `geometry` as cues, in course order.
    public static func cues(in geometry: CourseGeometry) -> [CourseCue] {
        let turns = measure(runs(in: geometry), geometry)
        var cues: [CourseCue] = []
        var last = -Double.infinity
        for t in turns {
            let kind = CueKind.turn(degrees: t.angle)
            if t.at - last < joinDistance, !cues.isEmpty {
                cues[cues.count - 1].then.append(kind)
            } else {
                let p = geometry.position(atProgress: t.at)
                cues.append(CourseCue(kind: kind, courseM: t.at, latitude: p.latitude, longitude: p.longitude,
                                      found: true))
            }
            last = t.at
        }
        return cues
    }

    /// The runs of points where the change is at least `minimumAngle` one
    /// way (a U-turn's sign may flip within its run), each placed at the
    /// middle of its peak (the points within 2° of its largest change: a
    /// corner's change is flat-topped when the corner is drawn round).
    static func runs(in g: CourseGeometry) -> [Turn] {
        var out: [Turn] = []
        guard g.length > 2 * window else { return out }
        var back = PlaneWalker(g), here = PlaneWalker(g), ahead = PlaneWalker(g)
        var run: [(s: Double, change: Double)] = []
        func close() {
            guard let first = run.first, let last = run.last else { return }
            let top = run.max { abs($0.change) < abs($1.change) } ?? first
            let plateau = run.filter { abs($0.change) >= abs(top.change) - 2 }
            let at = ((plateau.first?.s ?? top.s) + (plateau.last?.s ?? top.s)) / 2
            out.append(Turn(at: at, angle: top.change, start: first.s, end: last.s))
            run.removeAll(keepingCapacity: true)
        }
        var s = window
        while s <= g.length - window {
            let change = Self.change(from: back.point(at: s - window), via: here.point(at: s),
                                     to: ahead.point(at: s + window))
            if abs(change) >= minimumAngle {
                if let top = run.max(by: { abs($0.change) < abs($1.change) }),
                   (top.change > 0) != (change > 0), abs(change) < reversal, abs(top.change) < reversal {
                    close()
                }
                run.append((s, change))
            } else {
                close()
            }
            s += step
        }
        close()
        // A run at either end of the points measured may peak beyond them: it cannot be measured whole.
        return out.filter { $0.start > window && $0.end < g.length - window - step }
    }

    /// Each run's angle: the course's direction after it minus before it,
    /// over windows that stop at the neighbouring runs.
    static func measure(_ runs: [Turn], _ g: CourseGeometry) -> [Turn] {
        var out = runs
        for i in runs.indices {
            let r = runs[i]
            let before = max(r.start - window, i > 0 ? runs[i - 1].end : 0, 0)
            let after = min(r.end + window, i + 1 < runs.count ? runs[i + 1].start : g.length, g.length)
            // Touching runs leave no course between them: the peak's own change stands.
            guard r.start - before >= 2, after - r.end >= 2 else { continue }
            let a = g.planePosition(atProgress: before), b = g.planePosition(atProgress: r.start)
            let c = g.planePosition(atProgress: r.end), d = g.planePosition(atProgress: after)
            let angle = difference(bearing(a, b), bearing(c, d))
            // A U-turn keeps the sign of its peak (its own is noise).
            out[i].angle = abs(angle) > reversal ? (r.angle >= 0 ? abs(angle) : -abs(angle)) : angle
        }
        return out
    }

    /// The signed change of direction at `p` between the chords a→p and p→b, degrees.
    static func change(from a: (east: Double, north: Double), via p: (east: Double, north: Double),
                       to b: (east: Double, north: Double)) -> Double {
        difference(bearing(a, p), bearing(p, b))
    }

    static func bearing(_ a: (east: Double, north: Double), _ b: (east: Double, north: Double)) -> Double {
        atan2(b.east - a.east, b.north - a.north) * 180 / .pi
    }

    /// `to − from` wrapped to (−180, 180], degrees.
    static func difference(_ from: Double, _ to: Double) -> Double {
        var d = (to - from).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 }
        if d <= -180 { d += 360 }
        return d
    }
}

/// Positions along a course in the plane for increasing progress, walking
/// the segments forward instead of searching each time.
struct PlaneWalker {
    let geometry: CourseGeometry
    private var segment = 0

    init(_ geometry: CourseGeometry) { self.geometry = geometry }

    mutating func point(at s: Double) -> (east: Double, north: Double) {
        let c = geometry.cumulative
        while segment < geometry.segmentCount - 1 && c[segment + 1] <= s { segment += 1 }
        return geometry.planePosition(atProgress: s, segment: segment)
    }
}

extension CourseGeometry {
    /// The course's point at `progress` metres in the plane (clamped to the course).
    func planePosition(atProgress progress: Double, segment known: Int? = nil) -> (east: Double, north: Double) {
        let s = min(max(progress, 0), length)
        let i = known ?? min(segment(containing: s), segmentCount - 1)
        let span = cumulative[i + 1] - cumulative[i]
        let f = span > 0 ? min(1, max(0, (s - cumulative[i]) / span)) : 0
        return (east[i] + f * (east[i + 1] - east[i]), north[i] + f * (north[i + 1] - north[i]))
    }
}
