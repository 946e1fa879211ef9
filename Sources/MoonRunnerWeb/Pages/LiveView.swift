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
    /// The grid for an activity: a pace or a ride's speed, steps only on foot,
    /// a hike's climb rate after its climb.
    public static func grid(for profile: ActivityProfile) -> [FigureSpec] {
        var g = grid
        if profile.showsSpeed {
            g[0] = FigureSpec("speed_mps", .speed, .phrase(.speed))
            g[1] = FigureSpec("avg_speed_mps", .speed, .phrase(.averageSpeed))
        }
        if !profile.countsSteps { g.removeAll { $0.key == "steps" || $0.key == "cadence_spm" } }
        if profile.tellsClimbRate, let climb = g.firstIndex(where: { $0.key == "elevation_gain_m" }) {
            g.insert(FigureSpec("climb_rate_m_per_h", .climbRate, .phrase(.climbRate)), at: climb + 1)
        }
        return g
    }
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
    /// The session's activity as STATUS names it ("" while idle): the page is
    /// drawn for it, and reloads when another begins (its figures differ).
    public let activity: String
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
    /// The charge and the time it lasts ("38 % · 1:12"), while a gauge is fitted.
    public let battery: Figure
    /// The next cue of the course: its arrow, its words and how far it is.
    public let cue: NextCueView
    /// The planned workout's step, target and what is left of it.
    public let workout: WorkoutView
    public var extras: [Figure] {
        [courseName, courseState, wayBack, home, destination, nextBadge, battery, heartState, cue.arrow, cue.text,
         cue.distance]
            + workout.figures
    }
    /// Which optional blocks show (`data-if`).
    public let flags: [String: Bool]
    public let quiet: Bool

    public init(status: JSONValue, phrases p: Phrases, units: UnitSystem) {
        let raw = status.string(at: "state") ?? "idle"
        state = raw
        activity = status.string(at: "activity") ?? ""
        // A state this build does not know is shown as the daemon named it.
        stateText = SessionState(rawValue: raw).map(p.stateName) ?? raw
        heroFigures = Self.hero.map { $0.figure(in: status, phrases: p, units: units) }
        let profile = (Activity(rawValue: activity) ?? .run).profile
        gridFigures = Self.grid(for: profile).map { $0.figure(in: status, phrases: p, units: units) }
        heartFigures = Self.heart.map { $0.figure(in: status, phrases: p, units: units) }
        courseFigures = Self.course.map { $0.figure(in: status, phrases: p, units: units) }

        let following = status.string(at: "course.name") != nil
        let onCourse = status.bool(at: "course.on_course"), finished = status.bool(at: "course.finished")
        courseName = Figure(key: "course.name", label: p[.course], text: status.string(at: "course.name") ?? "",
                            value: status.string(at: "course.name") ?? "")
        courseState = Figure(key: "course.on_course", label: p[.course], text: Self.courseText(status, p),
                             value: following ? (onCourse ? "true" : "false") : "")
        let offCourse = following && !onCourse && !finished && status.number(at: "course.bearing_to_course_deg") != nil
        wayBack = Self.wayBack(status, offCourse: offCourse, p, units)
        home = Self.heading("home", .home, status, p, units)
        var destination = Self.heading("destination", .destination, status, p, units)
        if status.bool(at: "destination.arrived") { destination.text += " · " + p[.arrived] }
        self.destination = destination
        let badge = status.string(at: "next_badge.name").map { p.badgeName($0) }
        let left = Formatting.distance(status.number(at: "next_badge.left_m") ?? 0, units)
        nextBadge = Figure(key: "next_badge.left_m", label: p[.nextBadge],
                           text: badge.map { "\($0) · " + p.format(.toGoShort, ["distance": left]) } ?? "",
                           value: status.number(at: "next_badge.left_m").map(FigureText.numberText) ?? "")
        battery = Self.battery(status, p)
        let hrState = status.string(at: "hr_state") ?? HeartRateLinkState.none.rawValue
        let link = HeartRateLinkState(rawValue: hrState)
        heartState = Figure(key: "hr_state", label: p[.heartRate],
                            text: link == .searching ? p[.hrSearching] : link == .lost ? p[.hrLost] : "", value: hrState)
        quiet = status.bool(at: "quiet")
        cue = NextCueView(status: status, phrases: p, units: units)
        workout = WorkoutView(status: status, phrases: p, units: units)
        flags = [
            "course": following,
            "cue": cue.shown,
            "offcourse": offCourse,
            "home": status.at(path: "home").map { $0 != .null } ?? false,
            "destination": status.at(path: "destination").map { $0 != .null } ?? false,
            "badge": badge != nil,
            "quiet": quiet,
            "hr": link != HeartRateLinkState.none,
            "workout": workout.shown,
            "battery": status.at(path: "battery").map { $0 != .null } ?? false,
        ]
    }

    /// Where the wearer is on the course, in words.
    private static func courseText(_ status: JSONValue, _ p: Phrases) -> String {
        if status.bool(at: "course.finished") { return p[.courseFinished] }
        if status.bool(at: "course.on_course") { return p[.onCourse] }
        if status.number(at: "course.progress_m") == nil && status.number(at: "course.bearing_to_course_deg") == nil {
            return p[.notOnCourseYet]
        }
        return p[.offCourse]
    }

    /// The charge, then "charging" or the hours and minutes it lasts; "–" until the gauge is read.
    private static func battery(_ status: JSONValue, _ p: Phrases) -> Figure {
        let percent = status.number(at: "battery.percent")
        var text = percent.map { "\(Int($0.rounded())) %" } ?? "–"
        if status.bool(at: "battery.charging") {
            text += " · " + p[.batteryCharging]
        } else if let minutes = status.number(at: "battery.minutes_left"), minutes.isFinite, minutes >= 0 {
            // An estimate: hours and minutes, no seconds.
            let m = Int(minutes.rounded())
            text += " · \(m / 60):\((m % 60).zeroPadded(2))"
        }
        return Figure(key: "battery.percent", label: p[.battery], text: text,
                      value: percent.map(FigureText.numberText) ?? "")
    }

    /// Off course: the way back, as the announcer says it.
    private static func wayBack(_ status: JSONValue, offCourse: Bool, _ p: Phrases, _ units: UnitSystem) -> Figure {
        var back = ""
        if offCourse, let bearing = status.number(at: "course.bearing_to_course_deg") {
            back = p.format(.offCourseBack, [
                "distance": status.number(at: "course.distance_to_course_m").map { Formatting.distance($0, units) } ?? "–",
                "direction": p.direction(bearing), "bearing": String(Int(bearing.rounded()) % 360),
            ])
        }
        return Figure(key: "course.bearing_to_course_deg", label: p[.offCourse], text: back,
                      value: status.number(at: "course.bearing_to_course_deg").map(FigureText.numberText) ?? "")
    }

    /// Distance and bearing to a place (`home`, `destination`), "–" while unknown.
    private static func heading(_ prefix: String, _ label: Phrase, _ status: JSONValue, _ p: Phrases,
                                _ units: UnitSystem) -> Figure {
        let text: String
        if let d = status.number(at: "\(prefix).distance_m"), let b = status.number(at: "\(prefix).bearing_deg") {
            text = "\(Formatting.distance(d, units)) · \(Int(b.rounded()) % 360)° \(p.direction(b))"
        } else {
            text = "–"
        }
        return Figure(key: "\(prefix).distance_m", label: p[label], text: text,
                      value: status.number(at: "\(prefix).distance_m").map(FigureText.numberText) ?? "")
    }

    /// The controls that fit a state (`data-states` on each group); a state
    /// this build does not know (nil) offers a start, as when idle.
    public static func controls(for state: SessionState?) -> Set<String> {
        switch state {
        case .recording?, .autoPaused?: ["pause", "lap", "stop"]
        case .paused?: ["resume", "lap", "stop"]
        case .idle?, .stopped?, nil: ["start"]
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
            "activity": .string(activity),
            "figures": .object(figures),
            "flags": .object(flags.mapValues { .bool($0) }),
        ]).serialized
    }
}
