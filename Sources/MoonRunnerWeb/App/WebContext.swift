import Foundation
import Hummingbird
import MoonRunnerCore
import NIOCore

/// What a phone chose (cookies set by the settings page and the pages'
/// script) or what its browser asks for.
public struct Preferences: Sendable, Equatable {
    public var language: Language
    /// nil: the daemon's configured units.
    public var units: UnitSystem?
    /// The browser's offset from UTC in minutes (the `tzo` cookie the pages'
    /// script keeps), for the history's weeks and months; nil: UTC.
    public var utcOffsetMinutes: Int?

    public static let languageCookie = "lang"
    public static let unitsCookie = "units"
    public static let offsetCookie = "tzo"

    public init(language: Language = .english, units: UnitSystem? = nil, utcOffsetMinutes: Int? = nil) {
        self.language = language
        self.units = units
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    /// From a request's cookies and `Accept-Language`.
    public init(request: Request) {
        let cookies = request.cookies
        language = cookies[Self.languageCookie].flatMap { Language(tag: $0.value) }
            ?? Language.preferred(acceptLanguage: request.headers[.acceptLanguage])
        units = cookies[Self.unitsCookie].flatMap { UnitSystem(rawValue: $0.value) }
        utcOffsetMinutes = cookies[Self.offsetCookie].flatMap { Int($0.value) }.flatMap { (-14 * 60...14 * 60).contains($0) ? $0 : nil }
    }
}

/// The request context: Hummingbird's core, the connection (its peer's
/// address for the pairing back-off, its channel to stop reading an
/// upload that is refused), and what the gate found out about the phone.
public struct WebContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: (any Channel)?
    /// The paired phone making the request; nil before the gate or when unpaired.
    public var device: Device?
    public var preferences = Preferences()

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    public var remoteAddress: SocketAddress? { channel?.remoteAddress }

    /// The peer's IP address as text ("unknown" when the channel has none, as in router tests).
    public var peerAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
