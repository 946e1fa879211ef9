import Foundation
import HTTPTypes
import Hummingbird
import MoonRunnerProtocol

/// `GET /uploads`: each target's connection and each session's uploads, with
/// the forms that steer them; `POST /uploads/setup/:target`, `/retry`, `/again`;
/// `GET /uploads/connect/:target`, a link (not a form: the pages' CSP keeps
/// `form-action 'self'`, which a redirect to Strava after a POST would break)
/// that sends the browser to the service to grant access, and
/// `GET /uploads/callback`, where Strava and FitTrackee send it back. Everything is asked of
/// moonrunner-upload on its socket: this app keeps no secret of the targets'
/// and shows none (the service names the fields it has, not their values).
struct UploadsController {
    let app: WebApp

    func addRoutes(to group: RouterGroup<WebContext>) {
        group.get("/uploads", use: page)
        group.get("/uploads/callback", use: callback)
        group.post("/uploads/setup/{target}", use: setup)
        group.get("/uploads/connect/{target}", use: connect)
        group.post("/uploads/retry", use: retry)
        group.post("/uploads/again", use: again)
    }

    /// One request to the upload service, its reply decoded (an ERROR as a `RequestError`).
    func ask<T: Decodable>(_ type: T.Type, _ request: UploadRequest) async throws -> T {
        let line = try await app.uploads.requests([request.line], timeout: .seconds(30)).last ?? ""
        return try DaemonReply.decode(type, line)
    }

    @Sendable func page(_ request: Request, context: WebContext) async throws -> HTML {
        let p = app.phrases(context)
        do {
            let targets = try await ask(TargetsReply.self, .targets)
            let jobs = try await ask(UploadsReply.self, .uploads(limit: 60))
            let model = UploadsPage(layout: app.layout(p[.uploadsTitle], page: "uploads", context), phrases: p, targets: targets,
                                    jobs: jobs.jobs, csrf: app.csrf(context))
            return app.renderer.page(model, template: "uploads")
        } catch let e as DaemonLinkError {
            return app.message(p[.uploadsTitle], p.format(.uploadServiceDown, ["reason": Self.serviceReason(e)]),
                               status: .serviceUnavailable, context, retry: true)
        } catch {
            return app.failure(error, context, back: "/settings")
        }
    }

    /// The link's words name moonrunnerd; here the peer is the upload service.
    static func serviceReason(_ e: DaemonLinkError) -> String {
        e.description.replacingOccurrences(of: "moonrunnerd", with: "moonrunner-upload")
    }

    @Sendable func setup(_ request: Request, context: WebContext) async throws -> Response {
        try await changing(request, context) { fields in
            let target = try context.parameters.require("target")
            let wanted = ["client_id", "client_secret", "athlete_id", "api_key", "user", "password"]
            let given = fields.filter { wanted.contains($0.key) && !$0.value.isEmpty }
            _ = try await ask(TargetsReply.self, .setup(target: target, fields: given))
            return WebApp.redirect("/uploads")
        }
    }

    @Sendable func connect(_ request: Request, context: WebContext) async throws -> Response {
        let target = try context.parameters.require("target")
        let base = app.settings.publicURL.isEmpty ? "http://\(request.head.authority ?? "localhost")" : app.settings.publicURL
        do {
            let reply = try await ask(UploadAck.self, .authorize(target: target, redirect: base + "/uploads/callback"))
            guard let url = reply.url else { throw HTTPError(.badGateway) }
            return Response(status: .seeOther, headers: [.location: url, .cacheControl: "no-store"])
        } catch let e as DaemonLinkError {
            let p = app.phrases(context)
            return try app.message(p[.uploadsTitle], p.format(.uploadServiceDown, ["reason": Self.serviceReason(e)]),
                                   status: .serviceUnavailable, context, retry: true).response(from: request, context: context)
        } catch let e as RequestError {
            return try app.failure(e, context, back: "/uploads").response(from: request, context: context)
        }
    }

    /// Where the service sends the browser back: `code`, `state` (and Strava's `scope`), or `error`.
    @Sendable func callback(_ request: Request, context: WebContext) async throws -> Response {
        let q = request.uri.queryParameters
        let p = app.phrases(context)
        guard let state = q.get("state"), let code = q.get("code") else {
            let page = app.message(p[.uploadsTitle], p.format(.uploadGrantFailed, ["target": "", "message": q.get("error") ?? "-"]),
                                   status: .badRequest, context, back: "/uploads")
            return try page.response(from: request, context: context)
        }
        do {
            _ = try await ask(TargetsReply.self, .grant(state: state, code: code, scope: q.get("scope")))
            return WebApp.redirect("/uploads")
        } catch let e as RequestError {
            let page = app.message(p[.uploadsTitle], p.format(.uploadGrantFailed, ["target": "", "message": e.message]),
                                   status: .forbidden, context, back: "/uploads")
            return try page.response(from: request, context: context)
        }
    }

    @Sendable func retry(_ request: Request, context: WebContext) async throws -> Response {
        try await changing(request, context) { f in
            _ = try await ask(UploadAck.self, .retry(target: f["target"].flatMap { $0.isEmpty ? nil : $0 },
                                                     session: f["session"].flatMap { Int64($0) }))
            return WebApp.redirect("/uploads")
        }
    }

    @Sendable func again(_ request: Request, context: WebContext) async throws -> Response {
        try await changing(request, context) { f in
            guard let target = f["target"], let session = f["session"].flatMap({ Int64($0) }) else { throw HTTPError(.badRequest) }
            _ = try await ask(UploadAck.self, .again(target: target, session: session))
            return WebApp.redirect("/uploads")
        }
    }

    /// A state-changing form (Origin and CSRF checked), its failures as pages.
    func changing(_ request: Request, _ context: WebContext,
                  _ body: ([String: String]) async throws -> Response) async throws -> Response {
        let p = app.phrases(context)
        do {
            return try await body(try await app.stateChangingForm(request, context))
        } catch let e as PageError {
            return try e.response(from: request, context: context)
        } catch let e as DaemonLinkError {
            return try app.message(p[.uploadsTitle], p.format(.uploadServiceDown, ["reason": Self.serviceReason(e)]),
                                   status: .serviceUnavailable, context, retry: true).response(from: request, context: context)
        } catch let e as RequestError {
            return try app.failure(e, context, back: "/uploads").response(from: request, context: context)
        }
    }
}
