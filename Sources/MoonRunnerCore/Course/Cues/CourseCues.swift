/// The cues of a course: the points its file names, placed on it in course
/// order, and, when none of them is a turn, the turns its shape makes
/// (`TurnFinder`). Pure; runs once when a course is added or loaded.
public enum CourseCues {
    /// Passes whose distances from a file's point differ by less than this
    /// are one place to it, metres: the point goes to the first of them in
    /// course order after the file's previous point (repeated laps lie
    /// within centimetres of each other). A planner puts its points on the
    /// line it draws, within a metre or two; the two legs of an out-and-back
    /// (a street's two sides) are 8 m apart, so a point on one is never
    /// taken for the other.
    public static let passBlur = 3.0

    /// Every mark as a cue, the found turns when no mark is a turn, in course order.
    public static func make(marks: [CourseMark], geometry: CourseGeometry,
                            offCourseDistance: Double = CourseMatcherConfig().offCourseDistance) -> [CourseCue] {
        var cues = place(marks, on: geometry, offCourseDistance: offCourseDistance)
        if !cues.contains(where: { $0.kind.isTurn }) {
            cues += TurnFinder.cues(in: geometry)
        }
        // Stable: points at the same place keep the file's order.
        return cues.enumerated().sorted { a, b in
            a.element.courseM != b.element.courseM ? a.element.courseM < b.element.courseM : a.offset < b.offset
        }.map(\.element)
    }

    /// The file's points, each at its projection onto the course, taken in
    /// the file's order so that a lap or an out-and-back has each point once,
    /// at the right pass: the first pass in course order after the previous
    /// point within `passBlur` of the nearest (or, for a FIT point that says
    /// how far along it lies, the pass nearest that distance). A point out
    /// of order goes to the first such pass of the whole course; a point
    /// farther than `offCourseDistance` from the course is kept as a point
    /// of interest off the course, at the nearest point's progress.
    public static func place(_ marks: [CourseMark], on g: CourseGeometry,
                             offCourseDistance: Double = CourseMatcherConfig().offCourseDistance) -> [CourseCue] {
        var cues: [CourseCue] = []
        var cursor = 0.0
        var passes: [CourseProjection] = []
        var scratch: [Int32] = []
        for m in marks {
            let (x, y) = g.project(latitude: m.latitude, longitude: m.longitude)
            var chosen: CourseProjection?
            if let d = m.distance, d.isFinite {
                g.passes(east: x, north: y, within: offCourseDistance, from: 0, to: g.length, scratch: &scratch,
                         into: &passes)
                chosen = passes.min { abs($0.progress - d) < abs($1.progress - d) }
            } else {
                g.passes(east: x, north: y, within: offCourseDistance, from: cursor, to: g.length, scratch: &scratch,
                         into: &passes)
                // A pass whose nearest point is the previous point's place (cut there) holds a point at or
                // behind it: the next lap's pass there is the point's, when there is one.
                let after = passes.filter { $0.progress > cursor + 1 }
                chosen = Self.first(after) ?? Self.first(passes)
                if chosen == nil {
                    // Out of order in the file: the first such pass of the whole course.
                    g.passes(east: x, north: y, within: offCourseDistance, from: 0, to: g.length, scratch: &scratch,
                             into: &passes)
                    chosen = Self.first(passes)
                }
            }
            var cue = CourseCue(kind: m.kind, name: m.name, notes: m.notes, courseM: 0, latitude: m.latitude,
                                longitude: m.longitude)
            if let p = chosen {
                cue.courseM = p.progress
                cue.offsetM = p.distance
                if p.progress >= cursor { cursor = p.progress }
            } else {
                let p = g.nearest(east: x, north: y, from: 0, to: g.length)
                cue.courseM = p.progress
                cue.offsetM = p.distance
                cue.offCourse = true
            }
            cues.append(cue)
        }
        return cues
    }

    /// The first pass in course order within `passBlur` of the nearest one.
    private static func first(_ passes: [CourseProjection]) -> CourseProjection? {
        let best = passes.map(\.distance).min() ?? .infinity
        return passes.first { $0.distance <= best + passBlur }
    }
}
