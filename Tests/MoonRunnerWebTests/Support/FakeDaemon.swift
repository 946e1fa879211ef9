import Foundation
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import MoonRunnerWeb
import Synchronization

/// A daemon in memory that answers every request with lines of the real
/// daemon's own encoder (`ReplyEncoder`, `ExportStream`, `FileUpload`),
/// so the web app is tested against what the daemon sends. It keeps a small
/// state (the session's state, stored sessions, courses, quiet) and records
/// every request it was sent, so a test can say "nothing was changed".
final class FakeDaemon: Sendable {
    struct State {
        var state = SessionState.idle
        var quiet = false
        var laps = 0
        var sessions: [Int64: ExportSession] = [:]
        var courses: [CourseInfo] = []
        var workouts: [WorkoutInfo] = []
        var requests: [DaemonRequest.Command] = []
        var upload: FileUpload?
        var watchers = 0
        var maxUploadKB = 8192
        var units = UnitSystem.metric
        /// A reply for a command name instead of the usual one (an ERROR, say).
        var override: [String: String] = [:]
    }

    let state = Mutex(State())
    /// What a `?WATCH` gets after its first STATUS; then the connection ends,
    /// or with `holdWatch` stays open (silent) until the conversation is cancelled.
    let watchLines: [String]
    let holdWatch: Bool
    /// When given, a `?WATCH` is answered only once it opens (after a phone subscribed).
    let watchGate: WatchGate?

    init(sessions: [ExportSession] = [], watch: [String] = [], holdWatch: Bool = false, watchGate: WatchGate? = nil) {
        watchLines = watch
        self.holdWatch = holdWatch
        self.watchGate = watchGate
        state.withLock { s in for session in sessions { s.sessions[session.id] = session } }
    }

    var requests: [DaemonRequest.Command] { state.withLock { $0.requests } }
    var stateChanges: [DaemonRequest.Command] { requests.filter(\.changesState) }

    /// The reply lines to one request line, as the daemon would send them.
    func answer(_ line: String) -> [String] {
        let request: DaemonRequest
        do {
            request = try RequestParser.parse(line)
        } catch {
            return [ReplyEncoder.line(ErrorReply(error))]
        }
        return state.withLock { s in
            s.requests.append(request.command)
            if let forced = s.override[request.command.name] { return [forced] }
            return Self.reply(to: request.command, state: &s, watch: watchLines)
        }
    }

    private static func error(_ code: RequestError.Code, _ message: String) -> [String] {
        [ReplyEncoder.line(ErrorReply(RequestError(code, message)))]
    }

    private static func reply(to command: DaemonRequest.Command, state s: inout State, watch: [String]) -> [String] {
        switch command {
        case .version: return [ReplyEncoder.line(VersionReply())]
        case .status: return [status(s)]
        case .watch:
            s.watchers += 1
            return [status(s)] + watch
        case .start:
            guard s.state == .idle || s.state == .stopped else { return error(.invalidState, "a session is being recorded; ?STOP; it first") }
            s.state = .recording
            return [status(s)]
        case .pause:
            guard s.state == .recording || s.state == .autoPaused else { return error(.invalidState, "nothing to pause: no session is being recorded") }
            s.state = .paused
            return [status(s)]
        case .resume:
            guard s.state == .paused else { return error(.invalidState, "not paused") }
            s.state = .recording
            return [status(s)]
        case .lap:
            guard s.state != .idle && s.state != .stopped else { return error(.invalidState, "no session is being recorded") }
            s.laps += 1
            return [status(s)]
        case .stop:
            guard s.state != .idle && s.state != .stopped else { return error(.invalidState, "no session is being recorded") }
            s.state = .stopped
            return [status(s)]
        case let .announce(quiet):
            s.quiet = quiet
            return [status(s)]
        case let .sessions(limit, before):
            let list = s.sessions.values.filter { e in before.map { e.id < $0 } ?? true }.sorted { $0.id > $1.id }.prefix(limit)
            return [ReplyEncoder.line(SessionsReply(sessions: list.map(info)))]
        case let .session(id):
            guard let session = s.sessions[id] else { return error(.notFound, "no session \(id); ?SESSIONS; lists them") }
            return [sessionLine(session)]
        case .exportPrivate:
            return error(.unavailable, "privacy zones are the daemon's")
        case let .export(id, format):
            guard let session = s.sessions[id] else { return error(.notFound, "no session \(id); ?SESSIONS; lists them") }
            guard let f = ExportFormat(rawValue: format) else { return error(.badParameter, "unknown format") }
            let stream = ExportStream(file: ExportFile(session: id, format: format, mediaType: f.mimeType, data: f.export(session)),
                                      id: .number(Double(id)))
            return [stream.headerLine] + (0..<stream.chunkCount).map(stream.chunkLine)
        case let .delete(id):
            guard s.sessions.removeValue(forKey: id) != nil else { return error(.notFound, "no session \(id)") }
            return [ReplyEncoder.line(DeletedReply(session: id))]
        case .badges:
            let board = BadgeBoard(sessions: s.sessions.values.map {
                BadgeSessionSummary(id: $0.id, distance: $0.distance, moving: $0.moving, startTime: $0.startTime)
            })
            return [ReplyEncoder.line(BadgesReply(activity: .run, board: board, live: nil))]
        case .config:
            return [ReplyEncoder.line(ConfigReply(config: .object([
                "units": .string(s.units.rawValue), "course": .object(["max_upload_kb": .number(Double(s.maxUploadKB))]),
            ])))]
        case .courses:
            // The list without each course's cues, as the daemon sends it.
            return [ReplyEncoder.line(CoursesReply(courses: s.courses.reversed().map { c in
                var listed = c
                listed.cues = nil
                return listed
            }))]
        case let .course(id):
            guard let c = s.courses.first(where: { $0.id == id }) else { return error(.notFound, "no course \(id)") }
            return [ReplyEncoder.line(CourseReply(course: c))]
        case .workouts:
            return [ReplyEncoder.line(WorkoutsReply(workouts: s.workouts.reversed()))]
        case let .workout(id):
            guard let w = s.workouts.first(where: { $0.id == id }) else { return error(.notFound, "no workout \(id)") }
            return [ReplyEncoder.line(WorkoutReply(workout: w))]
        case let .workoutDelete(id):
            guard s.workouts.contains(where: { $0.id == id }) else { return error(.notFound, "no workout \(id)") }
            s.workouts.removeAll { $0.id == id }
            return [ReplyEncoder.line(WorkoutDeletedReply(workout: id))]
        case let .courseDelete(id):
            guard s.courses.contains(where: { $0.id == id }) else { return error(.notFound, "no course \(id)") }
            s.courses.removeAll { $0.id == id }
            return [ReplyEncoder.line(CourseDeletedReply(course: id))]
        case let .courseAdd(header), let .workoutAdd(header):
            guard header.kind == .workout || header.bytes <= s.maxUploadKB * 1024 else {
                return error(.tooLarge, "the course file has \(header.bytes) bytes; course.max_upload_kb allows \(s.maxUploadKB) KiB")
            }
            s.upload = FileUpload(header)
            return [ReplyEncoder.line(UploadReply(kind: header.kind, seq: nil, received: 0, bytes: header.bytes,
                                                  chunks: header.chunks))]
        case let .courseData(seq, data), let .workoutData(seq, data):
            guard var upload = s.upload else { return error(.badParameter, "no upload open") }
            do {
                try upload.accept(seq: seq, data: data)
            } catch {
                s.upload = nil
                return [ReplyEncoder.line(ErrorReply(error))]
            }
            s.upload = upload
            guard upload.isComplete else {
                return [ReplyEncoder.line(UploadReply(kind: upload.header.kind, seq: seq, received: upload.data.count,
                                                      bytes: upload.header.bytes, chunks: upload.header.chunks))]
            }
            s.upload = nil
            return upload.header.kind == .course ? Self.storeCourse(upload, &s) : Self.storeWorkout(upload, &s)
        }
    }

    /// A complete course upload, as the daemon's library: read, then stored.
    static func storeCourse(_ upload: FileUpload, _ s: inout State) -> [String] {
        do {
            let course = try CourseFile.read(upload.data, format: upload.header.format.flatMap(CourseFileFormat.init(rawValue:)),
                                             name: upload.header.name)
            let summary = CourseSummary(course.points)
            let info = CourseInfo(id: Int64(s.courses.count + 1), name: course.name, format: upload.header.format ?? "gpx",
                                  createdAt: 1_714_548_600, lengthM: summary.length, climbM: summary.climb,
                                  descentM: summary.descent, points: summary.points,
                                  bounds: CourseBounds(minLat: summary.minLatitude, minLon: summary.minLongitude,
                                                       maxLat: summary.maxLatitude, maxLon: summary.maxLongitude),
                                  cues: (try? FollowedCourse(id: nil, course: course))?.cues)
            s.courses.append(info)
            return [ReplyEncoder.line(CourseReply(course: info))]
        } catch {
            return Self.error(.badCourse, error.message)
        }
    }

    /// A complete workout upload, as the daemon's library: read, resolved, then stored.
    static func storeWorkout(_ upload: FileUpload, _ s: inout State) -> [String] {
        do {
            let format = upload.header.format.flatMap(WorkoutFileFormat.init(rawValue:))
            let workout = try WorkoutFile.read(upload.data, format: format, name: upload.header.name)
            let plan = try WorkoutPlan(workout)
            let info = WorkoutInfo(id: Int64(s.workouts.count + 1), name: workout.name, sport: nil,
                                   format: (format ?? WorkoutFileFormat.sniff(upload.data)).rawValue,
                                   createdAt: 1_714_548_600, steps: plan.steps.count, text: WorkoutText.format(workout),
                                   plan: plan.steps)
            s.workouts.append(info)
            return [ReplyEncoder.line(WorkoutReply(workout: info))]
        } catch {
            return Self.error(.badWorkout, "not a workout: \(error); nothing was stored")
        }
    }

    static func status(_ s: State) -> String {
        var stats = SessionStats()
        if s.state != .idle {
            stats.distance = 1234.5
            stats.elapsed = 600
            stats.moving = 580
            stats.speed = 2.5
            stats.steps = 1000
            stats.cadence = 162
            stats.laps = s.laps
        }
        let reply = StatusReply(time: 1_714_548_600, state: s.state, session: s.state == .idle ? nil : 7,
                                stats: s.state == .idle ? nil : stats,
                                gps: GPSStatus(health: .ok, grade: .best, fixes: 10, connects: 1),
                                imu: IMUStatus(health: .ok, samples: 100, rejected: 0, busErrors: 0, overflows: 0),
                                store: StoreStatus(health: .ok, pending: 0, lastError: nil), lastTransition: nil,
                                units: s.units, quiet: s.quiet)
        return ReplyEncoder.line(reply)
    }

    static func info(_ e: ExportSession) -> SessionInfo {
        SessionInfo(id: e.id, activity: e.activity.rawValue, state: .stopped, startTime: e.startTime, endTime: e.endTime,
                    distanceM: e.distance, elapsedS: e.elapsed, movingS: e.moving, steps: e.totalSteps, interrupted: false)
    }

    static func sessionLine(_ e: ExportSession) -> String {
        let figures = SessionFigures(caloriesKcal: e.calories,
                                     splitsKm: Splits.compute(points: e.points, pauses: e.pauses, units: .metric,
                                                              start: e.startTime, end: e.endTime),
                                     splitsMi: Splits.compute(points: e.points, pauses: e.pauses, units: .imperial,
                                                              start: e.startTime, end: e.endTime),
                                     laps: e.laps)
        return ReplyEncoder.line(SessionReply(session: info(e), stats: e.stats, pauses: e.pauses,
                                              events: e.events.map { EventReply(session: e.id, event: $0) },
                                              points: e.points.count, figures: figures,
                                              course: e.course.map { SessionCourseReply(id: 1, name: $0, finished: true) }))
    }
}

/// The fake daemon as the web app's link: each conversation parses the
/// lines the web app sends and answers them; a `?WATCH` ends after its lines.
struct FakeDaemonLink: DaemonLink {
    let daemon: FakeDaemon

    func converse(_ lines: [String], silence: Duration, receive: (String) async throws -> Bool) async throws {
        for line in lines {
            if line.hasPrefix("?WATCH"), let gate = daemon.watchGate { await gate.wait() }
            for reply in daemon.answer(line) where try await !receive(reply) {
                return
            }
            if daemon.holdWatch, line.hasPrefix("?WATCH") {
                try await Task.sleep(for: .seconds(3600))
            }
        }
        throw DaemonLinkError.closed
    }
}

/// The daemon is not running: every conversation fails as the socket link's would.
struct DownLink: DaemonLink {
    func converse(_ lines: [String], silence: Duration, receive: (String) async throws -> Bool) async throws {
        throw DaemonLinkError.unavailable("moonrunnerd is not running or not reachable at /run/moonrunner/moonrunner.sock "
            + "(No such file or directory)")
    }
}

/// Holds a fake watch back until a test lets it go.
actor WatchGate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for w in waiting { w.resume() }
        waiting = []
    }

    /// Opens once `feed` has a subscriber (checked every 5 ms, for at most 5 s).
    nonisolated func open(whenSubscribed feed: StatusFeed) {
        Task {
            for _ in 0..<1000 where await feed.watchers == 0 { try? await Task.sleep(for: .milliseconds(5)) }
            await self.open()
        }
    }
}
