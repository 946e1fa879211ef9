import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// What every page shares: its language, title, the navigation, the
/// version of the static files (so a new build's CSS is fetched afresh) and
/// whether the map library is needed.
public struct Layout: Sendable {
    public struct NavItem: Sendable {
        public let href: String
        public let label: String
        public let current: Bool
    }

    public let lang: String
    public let title: String
    public let page: String
    public let paired: Bool
    public let nav: [NavItem]
    public let version: String
    public let leaflet: Bool

    public init(title: String, page: String, phrases p: Phrases, paired: Bool, leaflet: Bool = false) {
        lang = p.language.htmlTag
        self.title = title
        self.page = page
        self.paired = paired
        self.leaflet = leaflet
        version = Assets.version
        nav = [("/", Phrase.navLive, "live"), ("/sessions", .navHistory, "sessions"), ("/courses", .navCourses, "courses"),
               ("/workouts", .navWorkouts, "workouts"), ("/badges", .navBadges, "badges"), ("/settings", .navSettings, "settings")].map {
            NavItem(href: $0.0, label: p[$0.1], current: $0.2 == page)
        }
    }
}

/// The templates, loaded once from what was compiled into the binary.
/// `render` returns nil only for a template that does not exist, which the
/// test that renders every page would catch; the app answers 500 then.
public struct PageRenderer: Sendable {
    let library: MustacheLibrary

    public init() throws {
        var library = MustacheLibrary()
        for (name, text) in Assets.templates {
            try library.register(text, named: name)
        }
        self.library = library
    }

    public func render(_ model: Any, template: String) -> String? {
        library.render(model, withTemplate: template)
    }

    /// An HTML response of `template` for `model`, or a plain 500 when the template is missing.
    public func page(_ model: Any, template: String, status: HTTPResponse.Status = .ok) -> HTML {
        guard let text = render(model, template: template) else {
            return HTML(body: "<!doctype html><title>500</title><p>Template \(template) is missing.", status: .internalServerError)
        }
        return HTML(body: text, status: status)
    }
}

/// A page as a response: `text/html`, never cached (the pages carry CSRF
/// tokens and the wearer's data), gzip when the browser takes it.
public struct HTML: ResponseGenerator, Sendable {
    public var body: String
    public var status: HTTPResponse.Status
    public var headers: HTTPFields

    public init(body: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) {
        self.body = body
        self.status = status
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.vary] = "Accept-Encoding"
        return Compressed.response(Array(body.utf8), status: status, headers: headers, request: request)
    }
}

/// A body sent gzipped when the request accepts it and it is worth it.
enum Compressed {
    static func response(_ bytes: [UInt8], status: HTTPResponse.Status, headers: HTTPFields, request: Request) -> Response {
        var headers = headers
        if bytes.count > 256, Gzip.accepted(request.headers[.acceptEncoding]), let gz = Gzip.compress(bytes) {
            headers[.contentEncoding] = "gzip"
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: gz)))
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
