import Logging
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol

/// The protocol over the daemon's typed parts: one switch over the commands,
/// each answered by the part that knows (the session service, the archive of
/// recorded sessions, the course and workout libraries, the uploads) with a
/// typed reply or a `RequestError`, and the reply encoded here, the request's
/// `"id"` with it. The wire's words become types here too (`"activity":"run"`
/// an `Activity`, a course or workout id the course to follow or the plan). It runs in the connection's task: an
/// export is written there, never on the session actor.
struct RequestRouter: Sendable {
    let config: DaemonConfig
    let service: SessionService
    let archive: SessionArchive
    let uploads: Uploads

    init(config: DaemonConfig, service: SessionService, archive: SessionArchive, logger: Logger) {
        self.config = config
        self.service = service
        self.archive = archive
        uploads = Uploads(courses: service.library, workouts: service.workouts, logger: logger)
    }

    /// One connection's side of its requests: who it is, where its `?WATCH`
    /// lines go, and the file upload it has in progress.
    struct Client: Sendable {
        let id: UInt64
        let watcher: Watchers.Sink
        var upload: FileUpload?
    }

    /// The reply to one admitted request: its reply line, an export to
    /// stream, or the `ERROR` it came to.
    func reply(to request: Request, from client: inout Client) async -> Outgoing {
        do throws(RequestError) {
            return try await answer(request, from: &client)
        } catch {
            return .line(ReplyEncoder.line(ErrorReply(error).answering(request.id)))
        }
    }

    /// The connection closed: it watches no more, and its upload's bytes are free.
    func disconnected(_ client: inout Client) {
        service.watchers.remove(client.id)
        uploads.drop(&client.upload)
    }

    private func answer(_ request: Request, from client: inout Client) async throws(RequestError) -> Outgoing {
        let library = service.library
        switch request.command {
        case .version: return line(VersionReply(), request)
        case .status: return try await answered(request) { await service.status() }
        case let .watch(enable):
            if enable {
                service.watchers.add(client.id, sink: client.watcher)
            } else {
                service.watchers.remove(client.id)
            }
            return try await answered(request) { await service.status() }
        case let .start(name, courseID, destination, workoutID):
            let activity = try Self.activity(name)
            return try await answered(request) { () async throws(RequestError) in
                var course: FollowedCourse?, plan: WorkoutPlan?
                if let courseID { course = try await library.load(id: courseID) }
                if let workoutID { plan = try await service.workouts.load(id: workoutID) }
                return try await service.start(activity, course: course, destination: destination, workout: plan)
            }
        case .pause: return try await answered(request) { () async throws(RequestError) in try await service.run(.pause) }
        case .resume: return try await answered(request) { () async throws(RequestError) in try await service.run(.resume) }
        case .lap: return try await answered(request) { () async throws(RequestError) in try await service.run(.lap) }
        case .stop: return try await answered(request) { () async throws(RequestError) in try await service.run(.stop) }
        case let .sessions(limit, before):
            return try await answered(request) { () async throws(RequestError) in
                try await archive.sessions(limit: limit, before: before)
            }
        case let .session(sid):
            return try await answered(request) { () async throws(RequestError) in try await archive.session(sid) }
        case let .delete(sid):
            return try await answered(request) { () async throws(RequestError) in try await archive.delete(sid) }
        case let .export(sid, format): return .export(ExportStream(file: try await export(sid, format: format), id: request.id))
        case let .exportPrivate(sid, format, zones):
            return .export(ExportStream(file: try await export(sid, format: format, leavingOut: zones), id: request.id))
        case .badges: return try await answered(request) { await service.badges() }
        case .config: return line(ConfigReply(config: ConfigSummary.json(config)), request)
        case .courses: return try await answered(request) { () async throws(RequestError) in try await library.courses() }
        case let .course(cid):
            return try await answered(request) { () async throws(RequestError) in try await library.course(cid) }
        case let .courseDelete(cid):
            return try await answered(request) { () async throws(RequestError) in try await library.delete(cid) }
        case let .courseAdd(header): return line(try uploads.open(header, upload: &client.upload), request)
        case let .courseData(seq, data):
            return line(try await uploads.receive(.course, seq: seq, data: data, upload: &client.upload), request)
        case .workouts:
            return try await answered(request) { () async throws(RequestError) in try await service.workouts.workouts() }
        case let .workout(wid):
            return try await answered(request) { () async throws(RequestError) in try await service.workouts.workout(wid) }
        case let .workoutDelete(wid):
            return try await answered(request) { () async throws(RequestError) in try await service.workouts.delete(wid) }
        case let .workoutAdd(header): return line(try uploads.open(header, upload: &client.upload), request)
        case let .workoutData(seq, data):
            return line(try await uploads.receive(.workout, seq: seq, data: data, upload: &client.upload), request)
        case let .announce(quiet): return try await answered(request) { await service.announce(quiet: quiet) }
        }
    }

    /// Out of line: encoding is synchronous, and its temporaries belong on the
    /// thread's stack, not in the frames of the async functions that call it.
    @inline(never)
    private func line(_ reply: some RequestReply, _ request: Request) -> Outgoing {
        .line(ReplyEncoder.line(reply.answering(request.id)))
    }

    /// A reply made and encoded in a frame of its own. The async frames of a
    /// connection's task keep their peak size until the connection closes, so
    /// one frame holding every reply type would cost each client the sum of
    /// their sizes rather than the largest.
    @inline(never)
    private func answered<Reply: RequestReply>(
        _ request: Request, _ make: () async throws(RequestError) -> Reply
    ) async throws(RequestError) -> Outgoing {
        line(try await make(), request)
    }

    /// `?START`'s activity by name; nil (the configured one) when none is named.
    private static func activity(_ name: String?) throws(RequestError) -> Activity? {
        guard let name else { return nil }
        guard let activity = Activity(rawValue: name) else {
            throw RequestError(.badParameter,
                "\"activity\" must be one of \(Activity.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return activity
    }

    /// `?EXPORT`: the session written in `format`, for the writer to stream in pieces.
    /// With privacy zones, the points of the start and end inside them are left out and the file's
    /// totals are those of what is left (`ExportSession.leavingOut`); a track wholly inside is refused.
    private func export(_ sid: Int64, format: String, leavingOut zones: [PrivacyZone] = []) async throws(RequestError) -> ExportFile {
        guard let f = ExportFormat(rawValue: format) else {
            throw RequestError(.badParameter,
                "\"format\" must be one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let session = try await archive.export(id: sid).leavingOut(zones) else {
            throw RequestError(.notFound, "every point of session \(sid) lies inside the privacy zones: nothing is left to export")
        }
        return ExportFile(session: sid, format: format, mediaType: f.mimeType, data: f.export(session, units: config.units))
    }
}
