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
        case .status: return line(await service.status(), request)
        case let .watch(enable):
            if enable {
                service.watchers.add(client.id, sink: client.watcher)
            } else {
                service.watchers.remove(client.id)
            }
            return line(await service.status(), request)
        case let .start(name, courseID, destination, workoutID):
            let activity = try Self.activity(name)
            var course: FollowedCourse?, plan: WorkoutPlan?
            if let courseID { course = try await library.load(id: courseID) }
            if let workoutID { plan = try await service.workouts.load(id: workoutID) }
            return line(try await service.start(activity, course: course, destination: destination, workout: plan),
                        request)
        case .pause: return line(try await service.run(.pause), request)
        case .resume: return line(try await service.run(.resume), request)
        case .lap: return line(try await service.run(.lap), request)
        case .stop: return line(try await service.run(.stop), request)
        case let .sessions(limit, before): return line(try await archive.sessions(limit: limit, before: before), request)
        case let .session(sid): return line(try await archive.session(sid), request)
        case let .delete(sid): return line(try await archive.delete(sid), request)
        case let .export(sid, format): return .export(ExportStream(file: try await export(sid, format: format), id: request.id))
        case .badges: return line(await service.badges(), request)
        case .config: return line(ConfigReply(config: ConfigSummary.json(config)), request)
        case .courses: return line(try await library.courses(), request)
        case let .course(cid): return line(try await library.course(cid), request)
        case let .courseDelete(cid): return line(try await library.delete(cid), request)
        case let .courseAdd(header): return line(try uploads.open(header, upload: &client.upload), request)
        case let .courseData(seq, data):
            return line(try await uploads.receive(.course, seq: seq, data: data, upload: &client.upload), request)
        case .workouts: return line(try await service.workouts.workouts(), request)
        case let .workout(wid): return line(try await service.workouts.workout(wid), request)
        case let .workoutDelete(wid): return line(try await service.workouts.delete(wid), request)
        case let .workoutAdd(header): return line(try uploads.open(header, upload: &client.upload), request)
        case let .workoutData(seq, data):
            return line(try await uploads.receive(.workout, seq: seq, data: data, upload: &client.upload), request)
        case let .announce(quiet): return line(await service.announce(quiet: quiet), request)
        }
    }

    private func line(_ reply: some RequestReply, _ request: Request) -> Outgoing {
        .line(ReplyEncoder.line(reply.answering(request.id)))
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
    private func export(_ sid: Int64, format: String) async throws(RequestError) -> ExportFile {
        guard let f = ExportFormat(rawValue: format) else {
            throw RequestError(.badParameter,
                "\"format\" must be one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let session = try await archive.export(id: sid)
        return ExportFile(session: sid, format: format, mediaType: f.mimeType, data: f.export(session, units: config.units))
    }
}
