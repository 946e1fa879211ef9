import Foundation
import HTTPTypes
import Hummingbird

/// The headers every response carries: a Content-Security-Policy that lets
/// a page load only from the Pi itself (plus the configured tile host for
/// images), no framing, no sniffing, no referrer. Errors thrown by a route
/// become their response here, so they carry the headers too.
struct SecurityHeaders: RouterMiddleware {
    typealias Context = WebContext
    let headers: HTTPFields

    init(tileOrigin: String?) {
        let images = ["'self'"] + (tileOrigin.map { [$0] } ?? [])
        let policy = [
            "default-src 'self'", "img-src \(images.joined(separator: " "))", "style-src 'self'", "script-src 'self'",
            "connect-src 'self'", "font-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
            "object-src 'none'",
        ].joined(separator: "; ")
        headers = [
            .contentSecurityPolicy: policy,
            .xContentTypeOptions: "nosniff",
            HTTPField.Name.referrerPolicy: "no-referrer",
            HTTPField.Name.xFrameOptions: "DENY",
            HTTPField.Name.crossOriginOpenerPolicy: "same-origin",
        ]
    }

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response) async throws
        -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        for field in headers where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }
}

/// The phone's language, units and time zone, from its cookies and `Accept-Language`.
struct PreferencesMiddleware: RouterMiddleware {
    typealias Context = WebContext

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response) async throws
        -> Response
    {
        var context = context
        context.preferences = Preferences(request: request)
        return try await next(request, context)
    }
}

/// Only paired phones pass: the device cookie's token must belong to a
/// device in the store. An unpaired browser asking for a page gets the
/// pairing page with 401; anything else a bare 401.
struct DeviceGate: RouterMiddleware {
    typealias Context = WebContext
    let app: WebApp
    let pairing: PairingController

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response) async throws
        -> Response
    {
        guard let device = await app.device(request, context) else {
            let wantsPage = request.method == .get && (request.headers[.accept]?.contains("text/html") ?? false)
            guard wantsPage else {
                return Response(status: .unauthorized, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                                body: ResponseBody(byteBuffer: ByteBuffer(string: "not paired: open /pair on this phone\n")))
            }
            return try pairing.page(context, code: "", device: nil, error: nil, status: .unauthorized)
                .response(from: request, context: context)
        }
        var context = context
        context.device = device
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static var referrerPolicy: Self { .init("Referrer-Policy")! }
    static var xFrameOptions: Self { .init("X-Frame-Options")! }
    static var crossOriginOpenerPolicy: Self { .init("Cross-Origin-Opener-Policy")! }
}
