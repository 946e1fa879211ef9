import Foundation
import HTTPTypes
import Hummingbird
import MoonRunnerCore

/// Pairing a phone: `GET /pair` (the code form, filled in from the link
/// `moonrunner web pair` prints) and `POST /pair` (the code traded for the
/// device cookie). The only pages an unpaired phone gets.
struct PairingController {
    let app: WebApp
    /// The device cookie lasts as long as a browser lets one (Chrome: 400 days).
    static let cookieLifetime = 400 * 86_400

    func addRoutes(to router: Router<WebContext>) {
        router.get("/pair", use: form)
        router.post("/pair", use: pair)
    }

    @Sendable func form(_ request: Request, context: WebContext) async throws -> HTML {
        let device = await app.device(request, context)
        return page(context, code: request.uri.queryParameters.get("code") ?? "", device: device, error: nil, status: .ok)
    }

    func page(_ context: WebContext, code: String, device: Device?, error: String?, status: HTTPResponse.Status,
              headers: HTTPFields = [:]) -> HTML {
        let p = app.phrases(context)
        let model = PairPage(layout: Layout(title: p[.pairTitle], page: "pair", phrases: p, paired: device != nil),
                             phrases: p, code: code, already: device.map { p.format(.pairAlready, ["name": $0.name]) },
                             error: error, intro: device == nil ? p[.pairNeeded] + " " + p[.pairIntro] : nil)
        var html = app.renderer.page(model, template: "pair", status: status)
        for field in headers { html.headers.append(field) }
        return html
    }

    @Sendable func pair(_ request: Request, context: WebContext) async throws -> Response {
        let p = app.phrases(context)
        // The code is the credential here (no device yet, so no CSRF token): the Origin must be ours.
        guard OriginCheck.sameOrigin(origin: request.headers[.origin], host: request.head.authority) else {
            return try app.message(p[.forbidden], p[.forbiddenCSRF], status: .forbidden, context, back: "/pair")
                .response(from: request, context: context)
        }
        let fields: [String: String]
        do {
            fields = try await WebApp.formFields(request, context, p: p, app: app)
        } catch let e as PageError {
            return try e.response(from: request, context: context)
        }
        let code = fields["code"] ?? ""
        let suggested = fields["name"] ?? ""
        switch await app.devices.pair(code: code, name: suggested, address: context.peerAddress) {
        case let .success((device, token)):
            context.logger.notice("paired device \(device.id) (\(device.name)) from \(context.peerAddress)")
            var response = WebApp.redirect("/")
            response.setCookie(Cookie(name: WebApp.deviceCookie, value: token, maxAge: Self.cookieLifetime, path: "/",
                                      httpOnly: true, sameSite: .strict))
            return response
        case let .failure(.wrongCode(wait)):
            context.logger.notice("wrong pairing code from \(context.peerAddress); next try in \(Int(wait)) s")
            return try page(context, code: "", device: nil, error: p[.pairWrong], status: .forbidden)
                .response(from: request, context: context)
        case let .failure(.backingOff(wait)):
            let seconds = String(Int(wait.rounded(.up)))
            return try page(context, code: code, device: nil, error: p.format(.pairWait, ["seconds": seconds]),
                            status: .tooManyRequests, headers: [.retryAfter: seconds])
                .response(from: request, context: context)
        case let .failure(.storeFailed(why)):
            context.logger.error("pairing failed: \(why)")
            return try app.message(p[.errorTitle], why, status: .internalServerError, context, back: "/pair")
                .response(from: request, context: context)
        }
    }
}

/// The pairing page's template model.
struct PairPage {
    let layout: Layout
    let p: [String: String]
    let code: String
    let already: String?
    let error: String?
    let intro: String?

    init(layout: Layout, phrases p: Phrases, code: String, already: String?, error: String?, intro: String?) {
        self.layout = layout
        self.p = p.named([.pairTitle, .pairCode, .pairName, .pairButton, .navLive])
        self.code = code
        self.already = already
        self.error = error
        self.intro = intro
    }
}

extension WebApp {
    /// The paired device a request's cookie names, if any.
    func device(_ request: Request, _ context: WebContext) async -> Device? {
        guard let token = request.cookies[Self.deviceCookie]?.value else { return nil }
        return await devices.device(forToken: token, address: context.peerAddress)
    }
}
