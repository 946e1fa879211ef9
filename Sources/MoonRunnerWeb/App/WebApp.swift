import Foundation
import HTTPTypes
import Hummingbird
import MoonRunnerCore
import MoonRunnerProtocol
import NIOCore

/// What every controller shares: the settings, the link to the daemon, the
/// live feed, the paired devices, the templates. Also the few things every
/// page does alike: the phone's words and units, the pages for failures,
/// and reading a form that changes state (Origin and CSRF checked).
public struct WebApp: Sendable {
    public let settings: WebSettings
    public let link: any DaemonLink
    /// The upload service's socket (the same framing and greeting as the daemon's).
    public let uploads: any DaemonLink
    public let feed: StatusFeed
    public let devices: DeviceStore
    let renderer: PageRenderer
    let sessions: SessionCache
    let tiles: MBTiles?
    /// Leaflet's files, loaded at start when tiles are configured.
    let leaflet: [String: Assets.File]

    public static let deviceCookie = "mr_device"
    /// Forms are small: a course upload goes through its own route.
    static let maxFormBytes = 16 * 1024

    func phrases(_ c: WebContext) -> Phrases { Phrases.of(c.preferences.language) }

    func units(_ c: WebContext) async -> UnitSystem {
        if let u = c.preferences.units { return u }
        return await feed.facts.units
    }

    func layout(_ title: String, page: String, _ c: WebContext, leaflet: Bool = false) -> Layout {
        Layout(title: title, page: page, phrases: phrases(c), paired: c.device != nil, leaflet: leaflet)
    }

    // MARK: Failures

    /// A page saying what went wrong, in the phone's language.
    func message(_ title: String, _ text: String, status: HTTPResponse.Status, _ c: WebContext,
                 retry: Bool = false, back: String? = nil) -> HTML {
        let p = phrases(c)
        let model = MessagePage(layout: layout(title, page: "message", c), title: title, text: text,
                                retry: retry ? p[.retry] : nil, back: back, backText: p[.back])
        return renderer.page(model, template: "message", status: status)
    }

    /// The page for an error from the daemon or the link: "not running" is a
    /// 503 that says so, a daemon ERROR its status and message, never a 500.
    func failure(_ error: any Error, _ c: WebContext, back: String? = nil) -> HTML {
        let p = phrases(c)
        switch error {
        case let e as DaemonLinkError:
            return message(p[.daemonDownTitle], p.format(.daemonDownBody, ["reason": e.description]),
                           status: .serviceUnavailable, c, retry: true)
        case let e as RequestError:
            return message(p[.errorTitle], p.format(.refused, ["message": e.message]), status: HTTPResponse.Status(e.code),
                           c, back: back)
        case let e as PageError:
            return e.page
        default:
            return message(p[.errorTitle], "\(error)", status: .internalServerError, c, back: back)
        }
    }

    // MARK: Forms

    /// The fields of a POSTed form, once its Origin is this server and its
    /// CSRF token is the device's; otherwise a 403 page is thrown.
    func stateChangingForm(_ request: Request, _ c: WebContext) async throws -> [String: String] {
        let p = phrases(c)
        guard OriginCheck.sameOrigin(origin: request.headers[.origin], host: request.head.authority) else {
            throw PageError(message(p[.forbidden], p[.forbiddenCSRF], status: .forbidden, c, back: "/"))
        }
        let fields = try await Self.formFields(request, c, p: p, app: self)
        guard let device = c.device, CSRF.valid(fields["csrf"], for: device.id, key: devices.csrfKey) else {
            throw PageError(message(p[.forbidden], p[.forbiddenCSRF], status: .forbidden, c, back: "/"))
        }
        return fields
    }

    /// A URL-encoded form body, at most `maxFormBytes`.
    static func formFields(_ request: Request, _ c: WebContext, p: Phrases, app: WebApp) async throws -> [String: String] {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxFormBytes)
        } catch {
            throw PageError(app.message(p[.errorTitle], p[.badRequest], status: .contentTooLarge, c, back: "/"))
        }
        return FormFields.parse(String(buffer: buffer))
    }

    /// The token a page's forms carry.
    func csrf(_ c: WebContext) -> String {
        c.device.map { CSRF.token(for: $0.id, key: devices.csrfKey) } ?? ""
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}

/// A page to answer with instead of what was asked (403, 404, 503 ...).
public struct PageError: HTTPResponseError, Sendable {
    public let page: HTML
    public init(_ page: HTML) { self.page = page }
    public var status: HTTPResponse.Status { page.status }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try page.response(from: request, context: context)
    }
}

/// `application/x-www-form-urlencoded`.
enum FormFields {
    static func parse(_ body: String) -> [String: String] {
        var out: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = decode(parts[0]), !key.isEmpty else { continue }
            out[key] = parts.count > 1 ? decode(parts[1]) ?? "" : ""
        }
        return out
    }

    private static func decode(_ s: Substring) -> String? {
        s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
