import Foundation
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol

/// The pictures of one session as the page shows them: drawn by the export
/// module's `SessionPictures` and `SplitBars` (the code of `moonrunner
/// export --format svg`) from the daemon's CSV export of the track.
public struct SessionDrawings: Sendable {
    public let map: String
    public let pace: String
    public let elevation: String
    public let cadence: String
    public let splits: String

    /// The session as the exporters take it: the SESSION reply for its
    /// figures, pauses and events, the CSV export for its points and cadence.
    public static func exportSession(_ reply: SessionReply, track: CSVTrackReader.Track) -> ExportSession {
        let events = reply.events.compactMap { e -> SessionEvent? in
            guard let kind = SessionEventKind(rawValue: e.event) else { return nil }
            return SessionEvent(kind: kind, time: e.time, detectedAt: e.detectedAt, cause: e.cause,
                                state: SessionState(rawValue: e.state) ?? .recording, detail: e.detail)
        }
        return ExportSession(id: reply.session.id, activity: Activity(rawValue: reply.session.activity) ?? .run,
                             startTime: reply.session.startTime, endTime: reply.session.endTime, stats: reply.stats,
                             points: track.points, events: events, pauses: reply.pauses, stepSeconds: track.stepSeconds,
                             laps: [], course: reply.course?.name)
    }

    public init(_ reply: SessionReply, track: CSVTrackReader.Track, units: UnitSystem, labels: ChartLabels) {
        let pictures = SessionPictures(Self.exportSession(reply, track: track), units: units, labels: labels)
        map = pictures.routeMap()
        pace = pictures.paceChart()
        elevation = pictures.elevationChart()
        cadence = pictures.cadenceChart()
        let list = units == .metric ? reply.figures.splitsKm : reply.figures.splitsMi
        splits = SplitBars.svg(list.map { SplitBar(number: $0.number, distance: $0.distanceM, pace: $0.paceS, partial: $0.partial) },
                               units: units, labels: labels)
    }
}

/// Drawings of recent sessions, by what they depend on: a stopped session
/// never changes, a live one changes with every point, so its point count is
/// part of the key. Bounded: a few sessions (a 10-hour one's drawings are
/// a few hundred KB).
public actor PictureCache {
    public struct Key: Hashable, Sendable {
        public var session: Int64
        public var points: Int
        public var state: String
        public var units: UnitSystem
        public var language: Language
    }

    private var entries: [(Key, SessionDrawings)] = []
    let capacity: Int

    public init(capacity: Int = 4) {
        self.capacity = capacity
    }

    public func drawings(for key: Key) -> SessionDrawings? {
        guard let i = entries.firstIndex(where: { $0.0 == key }) else { return nil }
        let hit = entries.remove(at: i)
        entries.append(hit)
        return hit.1
    }

    public func store(_ drawings: SessionDrawings, for key: Key) {
        entries.removeAll { $0.0 == key }
        entries.append((key, drawings))
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }

    /// Drops a deleted session's drawings.
    public func forget(session: Int64) {
        entries.removeAll { $0.0.session == session }
    }
}

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
    /// Derived figures (not members of the reply): average pace and cadence over moving time.
    let averagePace: String
    let averagePaceValue: String
    let averageCadence: String
    let averageCadenceValue: String
    let figures: [Figure]
    let course: String?
    let badges: [Badge]
    let drawings: SessionDrawings?
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
    let hasSplits: Bool
    let hasLaps: Bool

    init(layout: Layout, reply: SessionReply, json: JSONValue, badges: [Badge], drawings: SessionDrawings?,
         phrases p: Phrases, units: UnitSystem, csrf: String, tiles: TileSource, attribution: String) {
        self.layout = layout
        self.p = Dictionary(uniqueKeysWithValues: [Phrase.map, .charts, .splits, .laps, .downloads, .delete, .deleteConfirm,
                                                   .deleteReally, .cancel, .badgesEarned, .courseFollowed, .mapLegend,
                                                   .averagePace, .cadence, .tilesUnavailable, .interrupted, .recordingNow]
            .map { ($0.rawValue, p[$0]) })
        let s = reply.session
        id = s.id
        activity = p.activityName(s.activity)
        state = p.stateName(s.state)
        interrupted = s.interrupted
        heading = "\(activity) #\(s.id)"
        startISO = DateText.iso(s.startTime)
        startValue = FigureText.numberText(s.startTime)
        startText = DateText.readable(s.startTime)
        let moving = reply.stats.moving, distance = reply.stats.distance
        averagePace = Formatting.pace(speed: moving > 0 ? distance / moving : 0, units)
        averagePaceValue = moving > 0 && distance > 0 ? FigureText.numberText(moving / distance * 1000) : ""
        let cadence = reply.stats.averageCadence
        averageCadence = "\(Int(cadence.rounded())) spm"
        averageCadenceValue = FigureText.numberText(cadence)
        figures = Self.figures.map { $0.figure(in: json, phrases: p, units: units) }
        course = reply.course.map { "\($0.name) · \($0.finished ? p[.finished] : p[.notFinished])" }
        self.badges = badges
        self.drawings = drawings
        splitHeader = [p[.splitNumber], p[.splitTime], p[.splitPace], p[.elevationChange]]
        let splitList = units == .metric ? reply.figures.splitsKm : reply.figures.splitsMi
        splits = splitList.map { sp in
            Row(cells: [sp.partial ? Formatting.distance(sp.distanceM, units) : String(sp.number), Formatting.duration(sp.movingS),
                        sp.paceS.map { Formatting.pace(speed: units.metresPerUnit / $0, units) } ?? "–",
                        sp.elevationChangeM.map { units == .metric ? String(format: "%+.0f m", $0) : String(format: "%+.0f ft", $0 / 0.3048) } ?? "–"])
        }
        lapHeader = [p[.lapNumber], p[.distance], p[.lapTime], p[.pace], p[.steps]]
        laps = reply.figures.laps.count > 1 ? reply.figures.laps.map { l in
            Row(cells: [String(l.number), Formatting.distance(l.distanceM, units), Formatting.duration(l.movingS),
                        Formatting.pace(speed: l.avgSpeedMps, units), String(l.steps)])
        } : []
        downloads = ExportFormat.allCases.map { Download(href: "/sessions/\(s.id)/export.\($0.rawValue)", label: $0.rawValue.uppercased()) }
        self.csrf = csrf
        leaflet = tiles != .none
        switch tiles {
        case .none: self.tiles = ""
        case .mbtiles: self.tiles = "/tiles/{z}/{x}/{y}"
        case let .url(template): self.tiles = template
        }
        self.attribution = attribution
        hasBadges = !badges.isEmpty
        hasSplits = !splits.isEmpty
        hasLaps = !laps.isEmpty
    }
}
