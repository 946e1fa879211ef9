import Logging
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol

/// The protocol over the daemon's typed parts: one switch over the commands,
/// each answered by the part that knows (the session service, the archive of
/// recorded sessions, the course library, the uploads) with a typed reply or
/// a `RequestError`, and the reply encoded here, the request's `"id"` with it.
/// The wire's words become types here too (`"activity":"run"` an `Activity`, a
/// course id the course to follow). It runs in the connection's task: an
/// export is written there, never on the session actor.
struct RequestRouter: Sendable {
    let config: DaemonConfig
    let service: SessionService
    let archive: SessionArchive
    let uploads: CourseUploads

    init(config: DaemonConfig, service: SessionService, archive: SessionArchive, logger: Logger) {
        self.config = config
        self.service = service
        self.archive = archive
        uploads = CourseUploads(library: service.library, logger: logger)
    }

    /// One connection's side of its requests: who it is, where its `?WATCH`
    /// lines go, and the course upload it has in progress.
    struct Client: Sendable {
        let id: UInt64
        let watcher: Watchers.Sink
        var upload: CourseUpload?
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
        case let .start(name, courseID, destination):
            let activity = try Self.activity(name)
            var course: FollowedCourse?
            if let courseID { course = try await library.load(id: courseID) }
            return line(try await service.start(activity, course: course, destination: destination), request)
        case .pause: return line(try await service.run(.pause), request)
        case .resume: return line(try await service.run(.resume), request)
        case .lap: return line(try await service.run(.lap), request)
        case .stop: return line(try await service.run(.stop), request)
        case let .sessions(limit, before): return line(try await archive.sessions(limit: limit, before: before), request)
        case let .session(sid): return line(try await archive.session(sid), request)
        case let .delete(sid): return line(try await archive.delete(sid), request)
        case let .export(sid, format): return .export(ExportStream(file: try await export(sid, format: format), id: request.id))
        case let .exportPrivate(sid, format, zones):
            return .export(ExportStream(file: try await export(sid, format: format, leavingOut: zones), id: request.id))
        case .badges: return line(await service.badges(), request)
        case .config: return line(ConfigReply(config: ConfigSummary.json(config)), request)
        case .courses: return line(try await library.courses(), request)
        case let .course(cid): return line(try await library.course(cid), request)
        case let .courseDelete(cid): return line(try await library.delete(cid), request)
        case let .courseAdd(header): return line(try uploads.open(header, upload: &client.upload), request)
        case let .courseData(seq, data):
            return line(try await uploads.receive(seq: seq, data: data, upload: &client.upload), request)
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
