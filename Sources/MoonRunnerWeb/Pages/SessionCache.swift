import Foundation
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol

/// The pictures a session page shows, each its own request (`/sessions/ID/pictures/KIND`).
public enum PictureKind: String, Sendable, CaseIterable {
    case map, pace, elevation, cadence, splits

    /// The SVG of one picture, drawn by the export module (the code of `moonrunner export --format svg`).
    public func draw(_ reply: SessionReply, track: CSVTrackReader.Track, units: UnitSystem, labels: ChartLabels) -> String {
        if self == .splits {
            let list = units == .metric ? reply.figures.splitsKm : reply.figures.splitsMi
            return SplitBars.svg(list.map { SplitBar(number: $0.number, distance: $0.distanceM, pace: $0.paceS, partial: $0.partial) },
                                 units: units, labels: labels)
        }
        let pictures = SessionPictures(Self.exportSession(reply, track: track), units: units, labels: labels)
        switch self {
        case .map: return pictures.routeMap()
        case .pace: return pictures.paceChart()
        case .elevation: return pictures.elevationChart()
        case .cadence: return pictures.cadenceChart()
        case .splits: return ""
        }
    }

    /// The session as the exporters take it: the SESSION reply for its
    /// figures, pauses and events, the CSV export for its points and cadence.
    public static func exportSession(_ reply: SessionReply, track: CSVTrackReader.Track) -> ExportSession {
        let events = reply.events.compactMap { e -> SessionEvent? in
            guard let kind = SessionEventKind(rawValue: e.event) else { return nil }
            return SessionEvent(kind: kind, time: e.time, detectedAt: e.detectedAt, cause: e.cause,
                                state: e.state, detail: e.detail, workout: e.workout)
        }
        return ExportSession(id: reply.session.id, activity: Activity(rawValue: reply.session.activity) ?? .run,
                             startTime: reply.session.startTime, endTime: reply.session.endTime, stats: reply.stats,
                             points: track.points, events: events, pauses: reply.pauses, stepSeconds: track.stepSeconds,
                             laps: [], course: reply.course?.name)
    }
}

/// One session as the web app keeps it between views: its SESSION reply,
/// its track (the CSV export read back) and its pictures, gzipped. Only
/// stopped sessions are kept (a stopped session never changes); each view
/// first asks the daemon the cheap question whether it is still the same
/// (`?SESSIONS` of one: no track is read), so a deleted or otherwise changed
/// session is never shown from here.
public struct CachedSession: Sendable {
    public let info: SessionInfo
    public let line: String
    public let reply: SessionReply
    public let json: JSONValue
    public var track: CSVTrackReader.Track?
    var pictures: [PictureKey: Picture] = [:]
}

struct PictureKey: Hashable, Sendable {
    var kind: PictureKind
    var units: UnitSystem
    var language: Language
}

/// A drawn picture: the SVG and its gzip (made once).
struct Picture: Sendable {
    let svg: [UInt8]
    let gzipped: [UInt8]?

    init(_ svg: String) {
        self.svg = Array(svg.utf8)
        gzipped = Gzip.compress(self.svg)
    }
}

/// The sessions kept between views, the few most recent (a 10-hour
/// session's track is about 3 MB). Loading is single-flight: the five
/// pictures of a page asked at once load the session from the daemon once.
public actor SessionCache {
    private var entries: [CachedSession] = []
    private var loading: [Int64: Task<CachedSession, any Error>] = [:]
    let capacity: Int

    public init(capacity: Int = 2) {
        self.capacity = capacity
    }

    /// The kept session when it is still `info` (else it is dropped).
    public func session(_ info: SessionInfo) -> CachedSession? {
        guard let i = entries.firstIndex(where: { $0.info.id == info.id }) else { return nil }
        guard entries[i].info == info, info.state == .stopped else {
            entries.remove(at: i)
            return nil
        }
        let hit = entries.remove(at: i)
        entries.append(hit)
        return hit
    }

    /// The session with its track: kept, or loaded by `load` once however many ask at the same time.
    public func withTrack(_ info: SessionInfo, load: @escaping @Sendable () async throws -> CachedSession)
        async throws -> CachedSession
    {
        if let kept = session(info), kept.track != nil { return kept }
        if let running = loading[info.id] { return try await running.value }
        let task = Task { try await load() }
        loading[info.id] = task
        defer { loading[info.id] = nil }
        let loaded = try await task.value
        keep(loaded)
        return loaded
    }

    /// The load of a session under way, if any (a page then waits for it rather than asking again).
    public func loadUnderWay(_ id: Int64) -> Task<CachedSession, any Error>? {
        loading[id]
    }

    /// Keeps a stopped session (replacing what was kept of it).
    public func keep(_ s: CachedSession) {
        guard s.info.state == .stopped else { return }
        var s = s
        if let old = entries.first(where: { $0.info == s.info }) {
            s.pictures.merge(old.pictures) { new, _ in new }
            if s.track == nil { s.track = old.track }
        }
        entries.removeAll { $0.info.id == s.info.id }
        entries.append(s)
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }

    func picture(_ id: Int64, _ key: PictureKey) -> Picture? {
        entries.first { $0.info.id == id }?.pictures[key]
    }

    func keep(_ picture: Picture, _ id: Int64, _ key: PictureKey) {
        guard let i = entries.firstIndex(where: { $0.info.id == id }) else { return }
        entries[i].pictures[key] = picture
    }

    public func forget(session: Int64) {
        entries.removeAll { $0.info.id == session }
    }

    public var sessions: [Int64] { entries.map(\.info.id) }
}
