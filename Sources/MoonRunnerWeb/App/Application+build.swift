import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the web app as `moonrunner-web` runs it and the tests run it: the
/// settings and the link to the daemon come in as arguments (the tests pass
/// a `FakeDaemonLink`), the live feed and the admin socket run as services
/// that start and stop with the server.
public func buildApplication(settings: WebSettings, link: any DaemonLink, devices: DeviceStore,
                             feed: StatusFeed? = nil, adminSocket: Bool = true, uploads: (any DaemonLink)? = nil,
                             logger: Logger = Logger(label: "moonrunner-web")) async throws -> some ApplicationProtocol {
    let feed = feed ?? StatusFeed(link: link, logger: logger)
    let app = try WebApp(settings: settings, link: link, feed: feed, devices: devices,
                         uploads: uploads ?? SocketDaemonLink(path: settings.uploadSocket))
    // A revoked phone's live views end at once, not at its next request.
    await devices.setOnRevoke { id in await feed.endStreams(ofDevice: id) }
    // A session that has just stopped is read at once: its page is the next the runner opens;
    // so is the newest one when the daemon is first reached.
    await feed.setOnEvent { event in
        if event.event == "stop", let id = event.session { await app.warm(session: id) }
    }
    await feed.setOnConnect { await app.warmNewest() }
    let router = buildRouter(app)
    var services: [any Service] = [feed]
    if adminSocket { services.append(AdminServer(settings: settings, devices: devices, logger: logger)) }
    services.append(DeviceFlush(devices: devices))
    let idle = TimeAmount.milliseconds(Int64(settings.idleTimeout * 1000))
    let server = HTTPServerBuilder.http1(configuration: .init(
        idleTimeout: idle,
        httpDecoderConfiguration: .init(maxHeaderFieldSize: settings.maxHeaderBytes, maxHeaderListSize: settings.maxHeaderBytes,
                                        maxHeaderFieldCount: 100)))
    return Application(router: router, server: server,
                       configuration: ApplicationConfiguration(
                           address: .hostname(settings.host, port: settings.port), serverName: nil,
                           availableConnectionsDelegate: MaximumAvailableConnections(settings.maxConnections, logger: logger)),
                       services: services, logger: logger)
}

/// The routes: the pairing page and the static files for everyone, the
/// rest for paired phones only, every response with the security headers.
func buildRouter(_ app: WebApp) -> Router<WebContext> {
    let router = Router(context: WebContext.self)
    router.addMiddleware {
        SecurityHeaders(tileOrigin: app.settings.tiles.remoteOrigin)
        PreferencesMiddleware()
    }
    let pairing = PairingController(app: app)
    pairing.addRoutes(to: router)
    let statics = StaticController(leaflet: app.leaflet, tiles: app.tiles)
    statics.addPublicRoutes(to: router)
    let paired = router.group().add(middleware: DeviceGate(app: app, pairing: pairing))
    LiveController(app: app).addRoutes(to: paired)
    SessionsController(app: app).addRoutes(to: paired)
    CoursesController(app: app).addRoutes(to: paired)
    WorkoutsController(app: app).addRoutes(to: paired)
    CourseController(app: app).addRoutes(to: paired)
    BadgesController(app: app).addRoutes(to: paired)
    SettingsController(app: app).addRoutes(to: paired)
    UploadsController(app: app).addRoutes(to: paired)
    statics.addRoutes(to: paired)
    return router
}

extension WebApp {
    init(settings: WebSettings, link: any DaemonLink, feed: StatusFeed, devices: DeviceStore, uploads: any DaemonLink) throws {
        self.settings = settings
        self.link = link
        self.uploads = uploads
        self.feed = feed
        self.devices = devices
        renderer = try PageRenderer()
        sessions = SessionCache()
        if case let .mbtiles(path) = settings.tiles {
            tiles = try MBTiles(path: path)
        } else {
            tiles = nil
        }
        leaflet = settings.tiles == .none ? [:] : StaticController.loadLeaflet(settings.leafletDir)
    }
}

/// Writes the devices' `last_seen` when the web app stops.
struct DeviceFlush: Service {
    let devices: DeviceStore

    func run() async throws {
        try? await gracefulShutdown()
        await devices.flush()
    }
}
