import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerProtocol

/// Human-readable course, home and destination lines for `status`, `watch`,
/// `show` and the course commands.
extension Display {
    /// N, NE, E, ... for a bearing in degrees.
    static func compass(_ bearing: Double) -> String {
        let names = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        let b = bearing.truncatingRemainder(dividingBy: 360)
        let k = Int(((b < 0 ? b + 360 : b) / 45).rounded()) % 8
        return names[k]
    }

    /// `1.20 km at 214° (SW)`.
    static func heading(_ distance: Double, _ bearing: Double, _ units: UnitSystem) -> String {
        "\(Formatting.distance(distance, units)) at \(Int(bearing.rounded()) % 360)° (\(compass(bearing)))"
    }

    /// The `Course`, `Home` and `Dest` lines of a STATUS (none when idle).
    static func navigation(_ s: StatusReply, units: UnitSystem) -> [String] {
        var lines: [String] = []
        if let c = s.course {
            var text = "\(c.name): "
            if c.finished {
                text += "finished"
            } else if let done = c.progressM, let left = c.toGoM {
                text += "\(Formatting.distance(done, units)) done, \(Formatting.distance(left, units)) to go"
                if let eta = c.etaS { text += ", ETA \(Formatting.duration(eta))" }
            } else {
                text += "not on the course yet"
            }
            lines.append("Course    " + text)
            if !c.onCourse, let d = c.distanceToCourseM, let b = c.bearingToCourseDeg {
                lines.append("          OFF COURSE: back to it " + heading(d, b, units))
            }
            if let next = c.nextCue {
                lines.append("Next      \(cue(next.kind, name: next.name, then: next.then)) in "
                    + Formatting.shortDistance(next.distanceM, units))
            }
        }
        if let h = s.home { lines.append("Home      " + heading(h.distanceM, h.bearingDeg, units)) }
        if let d = s.destination {
            let where_ = d.distanceM.flatMap { dist in d.bearingDeg.map { heading(dist, $0, units) } } ?? "waiting for a position"
            lines.append("Dest      " + where_ + (d.arrived ? "  (arrived)" : ""))
        }
        return lines
    }

    /// The same for one-line output.
    static func navigationLine(_ s: StatusReply, units: UnitSystem) -> String {
        var parts: [String] = []
        if let c = s.course {
            if let done = c.progressM, let left = c.toGoM {
                parts.append("course \(done.fixed(0))/\(c.lengthM.fixed(0)) m to go \(left.fixed(0)) m"
                    + (c.onCourse ? "" : " off"))
            } else if let d = c.distanceToCourseM, let b = c.bearingToCourseDeg {
                parts.append("course off \(d.fixed(0)) m back \(b.fixed(0))°")
            }
            if let next = c.nextCue { parts.append("next \(next.kind.rawValue) \(next.distanceM.fixed(0)) m") }
        }
        if let h = s.home { parts.append("home \(h.distanceM.fixed(0)) m \(h.bearingDeg.fixed(0))°") }
        if let d = s.destination, let dist = d.distanceM, let b = d.bearingDeg {
            parts.append("dest \(dist.fixed(0)) m \(b.fixed(0))°")
        }
        return parts.isEmpty ? "" : " " + parts.joined(separator: " ")
    }

    static func courses(_ list: [CourseInfo], units: UnitSystem) -> String {
        guard !list.isEmpty else { return "no courses yet; add one with `moonrunner course add FILE`" }
        var out = ["   ID  NAME                      LENGTH     CLIMB  POINTS  ADDED"]
        for c in list {
            out.append(pad(String(c.id), 5, right: true) + "  " + pad(String(c.name.prefix(24)), 24) + " "
                + pad(Formatting.distance(c.lengthM, units), 9, right: true) + "  "
                + pad(elevationGain(c.climbM, units), 6, right: true) + "  " + pad(String(c.points), 6, right: true)
                + "  " + date(c.createdAt))
        }
        return out.joined(separator: "\n")
    }

    static func course(_ c: CourseInfo, units: UnitSystem) -> String {
        [
            "Course    #\(c.id) \(c.name) (\(c.format))",
            "Length    \(Formatting.distance(c.lengthM, units))",
            "Climb     \(elevation(c.climbM, c.descentM, units))",
            "Points    \(c.points)",
            "Bounds    \(c.bounds.minLat.fixed(5)),\(c.bounds.minLon.fixed(5)) – \(c.bounds.maxLat.fixed(5)),\(c.bounds.maxLon.fixed(5))",
            "Added     \(date(c.createdAt))",
        ].joined(separator: "\n") + cues(c.cues ?? [], units: units)
    }

    /// The `Cues` lines of `course show`: each cue at its distance along the
    /// course; a file's point away from the course said so, with how far.
    static func cues(_ list: [CourseCue], units: UnitSystem) -> String {
        guard !list.isEmpty else { return "\nCues      none" }
        let found = list.allSatisfy(\.found)
        var out = ["\nCues      \(list.count)" + (found ? " (found in the course's shape)" : " (the file's own points)")]
        for c in list {
            var line = "  " + pad(Formatting.distance(c.courseM, units), 9, right: true) + "  "
                + cue(c.kind, name: c.name, then: c.then)
            if c.offCourse { line += "  (off the course: \(Formatting.shortDistance(c.offsetM, units)) away, not said)" }
            if let notes = c.notes, !notes.isEmpty { line += "  — \(notes)" }
            out.append(line)
        }
        return out.joined(separator: "\n")
    }

    /// A cue in words: `Turn left onto Elm Street`, `Bear right, then left`, `Water: Fountain`.
    static func cue(_ kind: CueKind, name: String?, then: [CueKind] = []) -> String {
        var text = cueWords[kind] ?? kind.rawValue
        for next in then { text += ", then " + (cueWords[next] ?? next.rawValue).lowercased() }
        guard let name, !name.isEmpty else { return text }
        if kind == .generic { return name }
        return kind.isTurn ? "\(text) onto \(name)" : "\(text): \(name)"
    }

    private static let cueWords: [CueKind: String] = [
        .left: "Turn left", .right: "Turn right", .slightLeft: "Bear left", .slightRight: "Bear right",
        .sharpLeft: "Turn sharp left", .sharpRight: "Turn sharp right", .uTurn: "U-turn", .straight: "Straight on",
        .generic: "Point of interest", .summit: "Summit", .valley: "Valley", .water: "Water", .food: "Food",
        .danger: "Danger", .firstAid: "First aid", .sprint: "Sprint", .category4: "Category 4 climb",
        .category3: "Category 3 climb", .category2: "Category 2 climb", .category1: "Category 1 climb",
        .horsCategory: "Hors catégorie climb",
    ]

    private static func elevationGain(_ gain: Double, _ units: UnitSystem) -> String {
        Formatting.climb(gain, units)
    }
}
