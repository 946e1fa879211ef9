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
        guard let id = context.parameters.get("id", as: Int64.self) else { return notFound(context, "") }
        let reply: SessionReply, json: JSONValue, badges: BadgesReply?
        do {
            let lines = try await app.link.requests([DaemonRequest(command: .session(id: id)).line, DaemonRequest(command: .badges).line])
            reply = try DaemonReply.decode(SessionReply.self, lines.first ?? "")
            json = try JSONValue.parse(lines[0])
            badges = lines.count > 1 ? try? DaemonReply.decode(BadgesReply.self, lines[1]) : nil
        } catch let e as RequestError where e.code == .notFound {
            return notFound(context, String(id))
        } catch {
            return app.failure(error, context)
        }
        let key = PictureCache.Key(session: id, points: reply.points, state: reply.session.state, units: units,
                                   language: p.language)
        var drawings = await app.pictures.drawings(for: key)
        if drawings == nil, reply.points > 0 {
            do {
                let csv = CSVBuffer()
                try await app.link.export(id: id, format: ExportFormat.csv.rawValue) { await csv.append($0) }
                let track = try CSVTrackReader.read(await csv.bytes)
                let made = SessionDrawings(reply, track: track, units: units, labels: p.charts)
                await app.pictures.store(made, for: key)
                drawings = made
            } catch {
                // The figures still show; the page says the track could not be drawn.
                context.logger.warning("session \(id): no drawings: \(error)")
            }
        } else if drawings == nil {
            let made = SessionDrawings(reply, track: CSVTrackReader.Track(points: [], cadence: []), units: units,
                                       labels: p.charts)
            drawings = made
        }
        let earned = Self.badges(of: id, in: badges, phrases: p)
        let model = SessionPage(layout: app.layout(p[.sessionTitle] + " #\(id)", page: "session", context,
                                                   leaflet: app.settings.tiles != .none),
                                reply: reply, json: json, badges: earned, drawings: drawings, phrases: p, units: units,
                                csrf: app.csrf(context), tiles: app.settings.tiles, attribution: app.settings.tileAttribution)
        return app.renderer.page(model, template: "session")
    }

    /// Relays `?EXPORT`: the session is looked up first (an unknown one is a
    /// 404 page), then the file streams to the phone piece by piece, as the
    /// daemon sends it (never held whole in memory).
    @Sendable func export(_ request: Request, context: WebContext) async throws -> Response {
        guard let id = context.parameters.get("id", as: Int64.self), let name = context.parameters.get("format"),
              let format = ExportFormat(rawValue: name.lowercased()) else {
            return try notFound(context, "").response(from: request, context: context)
        }
        do {
            _ = try await app.link.decoded(SessionReply.self, for: DaemonRequest(command: .session(id: id)))
        } catch let e as RequestError where e.code == .notFound {
            return try notFound(context, String(id)).response(from: request, context: context)
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
            await app.pictures.forget(session: id)
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
