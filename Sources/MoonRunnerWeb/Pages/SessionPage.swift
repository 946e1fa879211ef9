import Foundation
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol

/// The session page's template model.
struct SessionPage {
    struct Row {
        let cells: [String]
    }

    struct Download {
        let href: String
        let label: String
    }

    struct Badge {
        let name: String
        let tier: String
    }

    /// A picture of the page, `<img src>` of its own route (kept by the browser: its address names the session's version).
    struct PictureLink {
        let href: String
        let alt: String
        let kind: String
    }

    /// The figures of the page: a SESSION member each (`data-field` is its path in `moonrunner show --json`).
    static let figures: [FigureSpec] = [
        FigureSpec("stats.distance_m", .distance, .phrase(.distance)),
        FigureSpec("stats.moving_s", .duration, .phrase(.moving)),
        FigureSpec("stats.elapsed_s", .duration, .phrase(.elapsed)),
        FigureSpec("figures.best_pace_s_per_km", .paceSecondsPerKm, .phrase(.bestPace)),
        FigureSpec("stats.max_speed_mps", .speed, .phrase(.maxSpeed)),
        FigureSpec("stats.steps", .count(""), .phrase(.steps)),
        FigureSpec("stats.elevation_gain_m", .climb, .phrase(.climb)),
        FigureSpec("stats.elevation_loss_m", .descent, .phrase(.descent)),
        FigureSpec("figures.calories_kcal", .energy, .phrase(.calories)),
        FigureSpec("stats.altitude_source", .altitudeSource, .phrase(.elevationSource)),
        FigureSpec("stats.laps", .count(""), .phrase(.laps)),
        FigureSpec("points", .count(""), .phrase(.points)),
    ]
    /// Shown when the session has heart rate (`figures.heart_rate` is not null).
    static let heartFigures: [FigureSpec] = [
        FigureSpec("figures.heart_rate.avg_bpm", .count("bpm"), .phrase(.hrAverage)),
        FigureSpec("figures.heart_rate.max_bpm", .count("bpm"), .phrase(.hrMaximum)),
        FigureSpec("figures.heart_rate.trimp", .count(""), .phrase(.trainingLoad)),
    ]

    let layout: Layout
    let p: [String: String]
    let id: Int64
    let heading: String
    let startISO: String
    let startValue: String
    let startText: String
    let activity: String
    let state: String
    let interrupted: Bool
    let figures: [Figure]
    /// Figures that are no member of the reply (`data-derived`): average pace and cadence over moving time.
    let derived: [Figure]
    let course: String?
    let badges: [Badge]
    let map: PictureLink?
    let charts: [PictureLink]
    let splitBars: PictureLink?
    let splitHeader: [String]
    let splits: [Row]
    let lapHeader: [String]
    let laps: [Row]
    let downloads: [Download]
    let csrf: String
    let leaflet: Bool
    let tiles: String
    let attribution: String
    let hasBadges: Bool
    let hasCharts: Bool
    let hasSplits: Bool
    let hasLaps: Bool
    /// A planned workout's steps as run (`WorkoutStepsTable`), none without one.
    let workoutHeader: [String]
    let workoutSteps: [Row]
    let hasWorkout: Bool

    init(layout: Layout, reply: SessionReply, json: JSONValue, badges: [Badge], phrases p: Phrases, units: UnitSystem,
         csrf: String, tiles: TileSource, attribution: String, workout: [WorkoutStepSummary] = []) {
        self.layout = layout
        self.p = p.named([.map, .charts, .splits, .laps, .downloads, .delete, .deleteConfirm,
                          .deleteReally, .cancel, .badgesEarned, .courseFollowed, .mapLegend,
                          .tilesUnavailable, .interrupted, .recordingNow, .workout])
        let s = reply.session
        id = s.id
        activity = p.activityName(s.activity)
        state = p.stateName(s.state)
        interrupted = s.interrupted
        heading = "\(activity) #\(s.id)"
        startISO = DateText.iso(s.startTime)
        startValue = FigureText.numberText(s.startTime)
        startText = DateText.readable(s.startTime)
        let shown = reply.stats.activity.profile
        derived = Self.derived(reply.stats, shown, p, units)
        let hasHeartRate = json.at(path: "figures.heart_rate").map { $0 != .null } ?? false
        let shares = FigureText.altitudeShares(reply.stats.altitudeShares, p)
        figures = (Self.figures + (hasHeartRate ? Self.heartFigures : []))
            .map { spec in
                var f = spec.figure(in: json, phrases: p, units: units)
                // A track whose altitude came from more than one source says how much from each.
                if f.key == "stats.altitude_source", let shares { f.text = shares }
                return f
            }
        course = reply.course.map { "\($0.name) · \($0.finished ? p[.finished] : p[.notFinished])" }
        self.badges = badges
        // The version of the session the pictures show: a stopped session's never changes.
        let version = "\(reply.points)-\(Int64((reply.session.endTime ?? 0) * 1000))-\(units.rawValue)-\(p.language.tag)"
        func link(_ kind: PictureKind, _ alt: String) -> PictureLink {
            PictureLink(href: "/sessions/\(s.id)/pictures/\(kind.rawValue)?v=\(version)", alt: alt, kind: kind.rawValue)
        }
        map = reply.points > 0 ? link(.map, p[.map]) : nil
        charts = reply.points > 0 ? [link(.pace, p.charts.pace), link(.elevation, p.charts.elevation),
                                     link(.cadence, p.charts.cadence)] : []
        let paceHeader = shown.showsSpeed ? p.format(.splitSpeed, ["unit": units == .metric ? "km/h" : "mph"])
            : p.format(.splitPace, ["unit": "min/\(units.distanceSymbol)"])
        splitHeader = [p[.splitNumber], p[.splitTime], paceHeader, p[.elevationChange]]
        splits = Self.splitRows(units == .metric ? reply.figures.splitsKm : reply.figures.splitsMi, shown, units)
        lapHeader = [p[.lapNumber], p[.distance], p[.lapTime], paceHeader, p[.steps]]
        laps = Self.lapRows(reply.figures.laps, shown, units)
        downloads = ExportFormat.allCases.map { Download(href: "/sessions/\(s.id)/export.\($0.rawValue)", label: $0.rawValue.uppercased()) }
        self.csrf = csrf
        leaflet = tiles != .none
        self.tiles = Self.tileTemplate(tiles)
        self.attribution = attribution
        hasBadges = !badges.isEmpty
        hasCharts = !charts.isEmpty
        hasSplits = !splits.isEmpty
        splitBars = splits.isEmpty ? nil : link(.splits, p[.splits])
        hasLaps = !laps.isEmpty
        workoutHeader = WorkoutStepsTable.header(p, pace: paceHeader)
        let count = reply.events.first { $0.workout != nil }?.workout?.steps ?? workout.count
        workoutSteps = WorkoutStepsTable.rows(workout, count: count, shown, p, units)
        hasWorkout = !workout.isEmpty
    }

    /// Average pace (a ride's speed) and cadence over moving time.
    private static func derived(_ stats: SessionStats, _ shown: ActivityProfile, _ p: Phrases,
                                _ units: UnitSystem) -> [Figure] {
        let moving = stats.moving, distance = stats.distance
        let cadence = stats.averageCadence
        let average = shown.showsSpeed
            ? Figure(key: "avg_speed_mps", label: p[.averageSpeed], text: Formatting.speed(stats.averageSpeed, units),
                     value: FigureText.numberText(stats.averageSpeed))
            : Figure(key: "avg_pace_s_per_km", label: p[.averagePace],
                     text: Formatting.pace(speed: moving > 0 ? distance / moving : 0, units),
                     value: moving > 0 && distance > 0 ? FigureText.numberText(moving / distance * 1000) : "")
        return [
            average,
            Figure(key: "avg_cadence_spm", label: p[.cadence], text: "\(Int(cadence.rounded())) spm",
                   value: FigureText.numberText(cadence)),
        ]
    }

    /// One row per split: its number (its distance when partial), time, pace (a ride's speed) and elevation change.
    private static func splitRows(_ splits: [SplitInfo], _ shown: ActivityProfile, _ units: UnitSystem) -> [Row] {
        splits.map { sp in
            Row(cells: [sp.partial ? Formatting.distance(sp.distanceM, units) : String(sp.number), Formatting.duration(sp.movingS),
                        sp.paceS.map { FigureText.rateNumber(speed: units.metresPerUnit / $0, shown, units) } ?? "–",
                        sp.elevationChangeM.map { FigureText.elevationChange($0, units) } ?? "–"])
        }
    }

    /// One row per lap, none when the session is a single lap.
    private static func lapRows(_ laps: [LapInfo], _ shown: ActivityProfile, _ units: UnitSystem) -> [Row] {
        guard laps.count > 1 else { return [] }
        return laps.map { l in
            Row(cells: [String(l.number), Formatting.distance(l.distanceM, units), Formatting.duration(l.movingS),
                        FigureText.rateNumber(speed: l.avgSpeedMps, shown, units), String(l.steps)])
        }
    }

    /// The map tiles' URL template for the page's script; empty without tiles.
    private static func tileTemplate(_ tiles: TileSource) -> String {
        switch tiles {
        case .none: ""
        case .mbtiles: "/tiles/{z}/{x}/{y}"
        case let .url(template): template
        }
    }
}
