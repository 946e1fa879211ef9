import Foundation
import HTTPTypes
import Hummingbird
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import NIOCore

/// The history and one session: `GET /sessions` (paged, with weekly and
/// monthly totals), `GET /sessions/{id}`, the downloads
/// `GET /sessions/{id}/export.{format}` (relayed `?EXPORT`, byte for byte the
/// CLI's file) and `POST /sessions/{id}/delete`.
struct SessionsController {
    let app: WebApp
    /// Sessions per page of the history.
    static let pageSize = 20
    /// Sessions the totals look back over (the daemon's largest list).
    static let totalsWindow = 1000

    func addRoutes(to group: RouterGroup<WebContext>) {
        group.get("/sessions", use: history)
        group.get("/sessions/{id}", use: session)
        group.get("/sessions/{id}/export.{format}", use: export)
        group.get("/sessions/{id}/pictures/{kind}", use: picture)
        group.post("/sessions/{id}/delete", use: delete)
    }

    @Sendable func history(_ request: Request, context: WebContext) async throws -> HTML {
        let p = app.phrases(context), units = await app.units(context)
        let before = request.uri.queryParameters.get("before", as: Int64.self)
        let list: [SessionInfo], all: [SessionInfo], badges: BadgesReply?
        do {
            let lines = try await app.link.requests([
                DaemonRequest(command: .sessions(limit: Self.pageSize, before: before)).line,
                DaemonRequest(command: .sessions(limit: Self.totalsWindow, before: nil)).line,
                DaemonRequest(command: .badges).line,
            ])
            guard lines.count == 3 else {
                _ = try DaemonReply.decode(SessionsReply.self, lines.last ?? "")
                throw DaemonLinkError.closed
            }
            list = try DaemonReply.decode(SessionsReply.self, lines[0]).sessions
            all = try DaemonReply.decode(SessionsReply.self, lines[1]).sessions
            badges = try? DaemonReply.decode(BadgesReply.self, lines[2])
        } catch {
            return app.failure(error, context)
        }
        let model = SessionsPage(layout: app.layout(p[.historyTitle], page: "sessions", context), sessions: list, all: all,
                                 badges: badges, before: before, pageSize: Self.pageSize, phrases: p, units: units,
                                 offset: context.preferences.utcOffsetMinutes)
        return app.renderer.page(model, template: "sessions")
    }

    @Sendable func session(_ request: Request, context: WebContext) async throws -> HTML {
        let p = app.phrases(context), units = await app.units(context)
        guard let id = context.parameters.get("id", as: Int64.self), id > 0, id < .max else { return notFound(context, "") }
        let session: CachedSession, badges: BadgesReply?
        do {
            let lines = try await app.link.requests([DaemonRequest(command: .sessions(limit: 1, before: id + 1)).line,
                                                     DaemonRequest(command: .badges).line])
            guard let info = try DaemonReply.decode(SessionsReply.self, lines.first ?? "").sessions.first, info.id == id else {
                return notFound(context, String(id))
            }
            badges = lines.count > 1 ? try? DaemonReply.decode(BadgesReply.self, lines[1]) : nil
            // The pictures asked next need the track: it is read with the SESSION reply, at once.
            session = try await app.sessionWithTrack(info)
        } catch let e as RequestError where e.code == .notFound {
            return notFound(context, String(id))
        } catch {
            return app.failure(error, context)
        }
        let earned = Self.badges(of: id, in: badges, phrases: p)
        let model = SessionPage(layout: app.layout(p[.sessionTitle] + " #\(id)", page: "session", context,
                                                   leaflet: app.settings.tiles != .none),
                                reply: session.reply, json: session.json, badges: earned, phrases: p, units: units,
                                csrf: app.csrf(context), tiles: app.settings.tiles, attribution: app.settings.tileAttribution,
                                workout: WorkoutStepsTable.steps(session.reply, points: session.track?.points ?? []))
        return app.renderer.page(model, template: "session")
    }

    /// A picture of a session (`map`, `pace`, `elevation`, `cadence`,
    /// `splits`, at `/sessions/ID/pictures/KIND`), drawn from its track and kept, gzipped, with a stopped session.
    @Sendable func picture(_ request: Request, context: WebContext) async throws -> Response {
        let p = app.phrases(context), units = await app.units(context)
        guard let id = context.parameters.get("id", as: Int64.self), id > 0, id < .max,
              let kind = context.parameters.get("kind").flatMap(PictureKind.init(rawValue:)) else {
            return try notFound(context, "").response(from: request, context: context)
        }
        let picture: Picture, stopped: Bool
        do {
            let list = try await app.link.decoded(SessionsReply.self, for: DaemonRequest(command: .sessions(limit: 1, before: id + 1)))
            guard let info = list.sessions.first, info.id == id else {
                return try notFound(context, String(id)).response(from: request, context: context)
            }
            stopped = info.state == .stopped
            let key = PictureKey(kind: kind, units: units, language: p.language)
            if stopped, let kept = await app.sessions.picture(id, key), await app.sessions.session(info) != nil {
                picture = kept
            } else {
                let session = try await app.sessionWithTrack(info)
                picture = Picture(kind.draw(session.reply, track: session.track ?? .init(points: [], cadence: []), units: units,
                                            labels: p.charts))
                if stopped { await app.sessions.keep(picture, id, key) }
            }
        } catch {
            return try app.failure(error, context).response(from: request, context: context)
        }
        var headers: HTTPFields = [
            .contentType: "image/svg+xml",
            // The address names the session's version (points, end, units, language): a stopped one is for keeps.
            .cacheControl: stopped ? "private, max-age=86400" : "no-store",
            .vary: "Accept-Encoding",
        ]
        if let gz = picture.gzipped, Gzip.accepted(request.headers[.acceptEncoding]) {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: gz)))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: picture.svg)))
    }

    /// Relays `?EXPORT`: the session is looked up first (an unknown one is a
    /// 404 page, before any header is sent), then the file streams to the
    /// phone piece by piece, as the daemon sends it (never held whole in memory).
    @Sendable func export(_ request: Request, context: WebContext) async throws -> Response {
        guard let id = context.parameters.get("id", as: Int64.self), id > 0, id < .max,
              let name = context.parameters.get("format"), let format = ExportFormat(rawValue: name.lowercased()) else {
            return try notFound(context, "").response(from: request, context: context)
        }
        do {
            // The cheap way to know it exists: the newest session below id + 1 (no track is read).
            let list = try await app.link.decoded(SessionsReply.self, for: DaemonRequest(command: .sessions(limit: 1, before: id + 1)))
            guard list.sessions.first?.id == id else {
                return try notFound(context, String(id)).response(from: request, context: context)
            }
        } catch {
            return try app.failure(error, context).response(from: request, context: context)
        }
        let link = app.link, logger = context.logger
        let headers: HTTPFields = [
            .contentType: format.mimeType,
            .contentDisposition: "attachment; filename=\"moonrunner-\(id).\(format.fileExtension)\"",
            .cacheControl: "no-store",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            do {
                try await link.export(id: id, format: format.rawValue) { data in
                    try await writer.write(ByteBuffer(bytes: data))
                }
                try await writer.finish(nil)
            } catch {
                // Headers are gone: a cut-off chunked body tells the browser the download failed.
                logger.warning("export of session \(id) as \(format.rawValue) failed: \(error)")
                throw error
            }
        })
    }

    @Sendable func delete(_ request: Request, context: WebContext) async throws -> Response {
        do {
            _ = try await app.stateChangingForm(request, context)
        } catch let e as PageError {
            return try e.response(from: request, context: context)
        }
        guard let id = context.parameters.get("id", as: Int64.self) else {
            return try notFound(context, "").response(from: request, context: context)
        }
        do {
            _ = try await app.link.decoded(DeletedReply.self, for: DaemonRequest(command: .delete(id: id)))
            await app.sessions.forget(session: id)
            return WebApp.redirect("/sessions")
        } catch let e as RequestError where e.code == .notFound {
            return try notFound(context, String(id)).response(from: request, context: context)
        } catch {
            return try app.failure(error, context, back: "/sessions/\(id)").response(from: request, context: context)
        }
    }

    private func notFound(_ context: WebContext, _ id: String) -> HTML {
        let p = app.phrases(context)
        return app.message(p[.notFound], id.isEmpty ? p[.notFound] : p.format(.notFoundSession, ["id": id]), status: .notFound,
                           context, back: "/sessions")
    }

    /// The badges a session earned (or raised to silver or gold).
    static func badges(of id: Int64, in reply: BadgesReply?, phrases p: Phrases) -> [SessionPage.Badge] {
        guard let reply else { return [] }
        var out: [SessionPage.Badge] = []
        for b in reply.badges {
            let name = p.badgeName(b.name)
            if b.earned?.session == id { out.append(.init(name: name, tier: p[.tierEarned])) }
            if b.silver?.session == id { out.append(.init(name: name, tier: p[.tierSilver])) }
            if b.gold?.session == id { out.append(.init(name: name, tier: p[.tierGold])) }
        }
        return out
    }
}

/// The CSV export as it arrives.
actor CSVBuffer {
    private(set) var bytes: [UInt8] = []
    func append(_ data: Data) { bytes.append(contentsOf: data) }
}

extension WebApp {
    /// A session's SESSION reply: kept when it is stopped and unchanged, else asked.
    func session(_ info: SessionInfo) async throws -> CachedSession {
        if let kept = await sessions.session(info) { return kept }
        if let underway = await sessions.loadUnderWay(info.id), let loaded = try? await underway.value, loaded.info == info {
            return loaded
        }
        return try await askSession(info)
    }

    /// The SESSION reply from the daemon (kept when the session is stopped).
    private func askSession(_ info: SessionInfo) async throws -> CachedSession {
        if let kept = await sessions.session(info) { return kept }
        let line = try await link.request(DaemonRequest(command: .session(id: info.id)))
        let reply = try DaemonReply.decode(SessionReply.self, line)
        let entry = CachedSession(info: info, line: line, reply: reply, json: try JSONValue.parse(line), track: nil)
        await sessions.keep(entry)
        return entry
    }

    /// A session with its track (the CSV export read back), loaded once however many pictures ask;
    /// its SESSION reply and its CSV are asked at once, on two connections, so the daemon's reads overlap.
    func sessionWithTrack(_ info: SessionInfo) async throws -> CachedSession {
        try await sessions.withTrack(info) { [self] in
            async let asked = askSession(info)
            let csv = CSVBuffer()
            try await link.export(id: info.id, format: ExportFormat.csv.rawValue) { await csv.append($0) }
            let track = try CSVTrackReader.read(await csv.bytes)
            var entry = try await asked
            entry.track = track
            return entry
        }
    }

    /// Loads a session that has just stopped, so that its page, the next one
    /// the runner opens, is ready (a 10-hour session takes the daemon a
    /// fraction of a second to read).
    func warmNewest() async {
        guard let list = try? await link.decoded(SessionsReply.self, for: DaemonRequest(command: .sessions(limit: 1, before: nil))),
              let info = list.sessions.first, info.state == .stopped else { return }
        _ = try? await sessionWithTrack(info)
    }

    func warm(session id: Int64) async {
        guard let list = try? await link.decoded(SessionsReply.self, for: DaemonRequest(command: .sessions(limit: 1, before: id + 1))),
              let info = list.sessions.first, info.id == id, info.state == .stopped else { return }
        _ = try? await sessionWithTrack(info)
    }
}
