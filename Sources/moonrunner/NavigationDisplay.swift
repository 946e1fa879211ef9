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
        ].joined(separator: "\n")
    }

    private static func elevationGain(_ gain: Double, _ units: UnitSystem) -> String {
        Formatting.climb(gain, units)
    }
}
