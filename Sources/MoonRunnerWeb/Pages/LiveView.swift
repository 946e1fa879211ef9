import Foundation
import MoonRunnerCore
import MoonRunnerProtocol

/// The run screen built from one STATUS: every figure, what to show and
/// which controls fit the state. The page's first HTML and each SSE update
/// are both made from it, so the two cannot disagree. Pure: a STATUS and
/// the phone's language and units in, text out.
public struct LiveView: Sendable {
    /// The big two at the top, then the grid. A figure is one line here
    /// (its STATUS key, how to show it, its label), e.g. for a heart rate:
    /// `FigureSpec("hr_bpm", .count("bpm"), .words(en: "Heart rate", zh: "心率")),`
    public static let hero: [FigureSpec] = [
        FigureSpec("distance_m", .distance, .phrase(.distance)),
        FigureSpec("elapsed_s", .duration, .phrase(.elapsed)),
    ]
    public static let grid: [FigureSpec] = [
        FigureSpec("pace_s_per_km", .paceSecondsPerKm, .phrase(.pace)),
        FigureSpec("avg_speed_mps", .paceFromSpeed, .phrase(.averagePace)),
        FigureSpec("moving_s", .duration, .phrase(.moving)),
        FigureSpec("steps", .count(""), .phrase(.steps)),
        FigureSpec("cadence_spm", .perMinute("spm"), .phrase(.cadence)),
        FigureSpec("elevation_gain_m", .climb, .phrase(.climb)),
        FigureSpec("gps.grade", .grade, .phrase(.gps)),
        FigureSpec("calories_kcal", .energy, .phrase(.calories)),
        FigureSpec("laps", .count(""), .phrase(.laps)),
    ]
    /// Shown while a strap is configured (`hr_state` other than `none`).
    public static let heart: [FigureSpec] = [
        FigureSpec("hr_bpm", .count("bpm"), .phrase(.heartRate)),
        FigureSpec("hr_zone", .count(""), .phrase(.hrZone)),
    ]
    public static let course: [FigureSpec] = [
        FigureSpec("course.progress_m", .distance, .phrase(.progress)),
        FigureSpec("course.to_go_m", .distance, .phrase(.toGo)),
        FigureSpec("course.eta_s", .duration, .phrase(.eta)),
    ]

    public let state: String
    public let stateText: String
    public let heroFigures: [Figure]
    public let gridFigures: [Figure]
    public let heartFigures: [Figure]
    /// The strap's state in words when it is not delivering (`hr_state`).
    public let heartState: Figure
    public let courseFigures: [Figure]
    /// Figures only some states have: the course's name and state, the way
    /// back to it, home, the destination, the next badge.
    public let courseName: Figure
    public let courseState: Figure
    public let wayBack: Figure
    public let home: Figure
    public let destination: Figure
    public let nextBadge: Figure
    public var extras: [Figure] { [courseName, courseState, wayBack, home, destination, nextBadge, heartState] }
    /// Which optional blocks show (`data-if`).
    public let flags: [String: Bool]
    public let quiet: Bool

    public init(status: JSONValue, phrases p: Phrases, units: UnitSystem) {
        let raw = status.at(path: "state").flatMap { if case let .string(s) = $0 { s } else { nil } } ?? "idle"
        state = raw
        stateText = p.stateName(raw)
        heroFigures = Self.hero.map { $0.figure(in: status, phrases: p, units: units) }
        gridFigures = Self.grid.map { $0.figure(in: status, phrases: p, units: units) }
        heartFigures = Self.heart.map { $0.figure(in: status, phrases: p, units: units) }
        courseFigures = Self.course.map { $0.figure(in: status, phrases: p, units: units) }

        func number(_ path: String) -> Double? {
            if case let .number(v)? = status.at(path: path), v.isFinite { return v }
            return nil
        }
        func bool(_ path: String) -> Bool {
            if case let .bool(b)? = status.at(path: path) { return b }
            return false
        }
        func string(_ path: String) -> String? {
            if case let .string(s)? = status.at(path: path) { return s }
            return nil
        }
        let following = string("course.name") != nil
        let onCourse = bool("course.on_course"), finished = bool("course.finished")
        let courseText: String
        if finished {
            courseText = p[.courseFinished]
        } else if onCourse {
            courseText = p[.onCourse]
        } else if number("course.progress_m") == nil && number("course.bearing_to_course_deg") == nil {
            courseText = p[.notOnCourseYet]
        } else {
            courseText = p[.offCourse]
        }
        courseName = Figure(key: "course.name", label: p[.course], text: string("course.name") ?? "",
                            value: string("course.name") ?? "")
        courseState = Figure(key: "course.on_course", label: p[.course], text: courseText,
                             value: following ? (onCourse ? "true" : "false") : "")
        // Off course: the way back, as the announcer says it.
        let offCourse = following && !onCourse && !finished && number("course.bearing_to_course_deg") != nil
        var back = ""
        if offCourse, let bearing = number("course.bearing_to_course_deg") {
            back = p.format(.offCourseBack, [
                "distance": number("course.distance_to_course_m").map { Formatting.distance($0, units) } ?? "–",
                "direction": p.direction(bearing), "bearing": String(Int(bearing.rounded()) % 360),
            ])
        }
        wayBack = Figure(key: "course.bearing_to_course_deg", label: p[.offCourse], text: back,
                         value: number("course.bearing_to_course_deg").map(FigureText.numberText) ?? "")
        func heading(_ prefix: String, _ label: Phrase) -> Figure {
            let text: String
            if let d = number("\(prefix).distance_m"), let b = number("\(prefix).bearing_deg") {
                text = "\(Formatting.distance(d, units)) · \(Int(b.rounded()) % 360)° \(p.direction(b))"
            } else {
                text = "–"
            }
            return Figure(key: "\(prefix).distance_m", label: p[label], text: text,
                          value: number("\(prefix).distance_m").map(FigureText.numberText) ?? "")
        }
        home = heading("home", .home)
        var destination = heading("destination", .destination)
        if bool("destination.arrived") { destination.text += " · " + p[.arrived] }
        self.destination = destination
        let badge = string("next_badge.name").map { p.badgeName($0) }
        let left = Formatting.distance(number("next_badge.left_m") ?? 0, units)
        nextBadge = Figure(key: "next_badge.left_m", label: p[.nextBadge],
                           text: badge.map { "\($0) · " + p.format(.toGoShort, ["distance": left]) } ?? "",
                           value: number("next_badge.left_m").map(FigureText.numberText) ?? "")
        let hrState = string("hr_state") ?? "none"
        heartState = Figure(key: "hr_state", label: p[.heartRate],
                            text: hrState == "searching" ? p[.hrSearching] : hrState == "lost" ? p[.hrLost] : "",
                            value: hrState)
        quiet = bool("quiet")
        flags = [
            "course": following,
            "offcourse": offCourse,
            "home": status.at(path: "home").map { $0 != .null } ?? false,
            "destination": status.at(path: "destination").map { $0 != .null } ?? false,
            "badge": badge != nil,
            "quiet": quiet,
            "hr": hrState != "none",
        ]
    }

    /// The controls that fit a state (`data-states` on each group).
    public static func controls(for state: String) -> Set<String> {
        switch state {
        case "recording", "autoPaused": ["pause", "lap", "stop"]
        case "paused": ["resume", "lap", "stop"]
        default: ["start"]
        }
    }

    /// The SSE update: `{"state":…, "figures":{key:[text, value]}, "flags":{…}}`.
    public var json: String {
        var figures: [String: JSONValue] = ["state": .array([.string(stateText), .string(state)])]
        for f in heroFigures + gridFigures + heartFigures + courseFigures + extras {
            figures[f.key] = .array([.string(f.text), .string(f.value)])
        }
        return JSONValue.object([
            "state": .string(state),
            "figures": .object(figures),
            "flags": .object(flags.mapValues { .bool($0) }),
        ]).serialized
    }
}
