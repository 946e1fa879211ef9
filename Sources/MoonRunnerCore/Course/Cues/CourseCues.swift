/// The cues of a course: the points its file names, placed on it in course
/// order, and, when none of them is a turn, the turns its shape makes
/// (`TurnFinder`). Pure; runs once when a course is added or loaded.
public enum CourseCues {
    /// A file's point and the line it marks differ by a few metres (a
    /// planner snaps one to the street, the other to its centre); the two
    /// legs of an out-and-back (a street's two sides, 8 m) and repeated laps
    /// lie within this of each other, so among passes this near the nearest
    /// one, the first in course order after the file's previous point is
    /// the point's, metres.
    public static let passBlur = 10.0

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
                for lower in [cursor, 0] where chosen == nil {
                    g.passes(east: x, north: y, within: offCourseDistance, from: lower, to: g.length,
                             scratch: &scratch, into: &passes)
                    let best = passes.map(\.distance).min() ?? .infinity
                    chosen = passes.first { $0.distance <= best + passBlur }
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
}
