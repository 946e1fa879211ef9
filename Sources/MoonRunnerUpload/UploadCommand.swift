import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import MoonRunnerConfig
import MoonRunnerProtocol
import MoonRunnerWeb
import ServiceLifecycle

/// `moonrunner-upload`: sends finished sessions to Strava, intervals.icu,
/// FitTrackee and a WebDAV folder. Reads its options and settings, builds the
/// queue, its socket and the network watch, and runs them until SIGTERM or
/// SIGINT; nothing else happens here. A library type so that the daemon's
/// executable runs it when called as `moonrunner-upload` (the package's
/// link), as it runs the web app: one copy of the Swift runtime on the card.
public struct UploadCommand: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "moonrunner-upload",
        abstract: "Upload finished sessions to Strava, intervals.icu, FitTrackee and WebDAV, once each.",
        discussion: """
            A client of moonrunnerd's control socket: it queues each session that stops for every connected \
            target and sends it when the network allows (upload.networks), retrying with back-off (5 s doubling \
            to 15 minutes) and at once when NetworkManager says the network is back. Its queue, ledger and \
            credentials live in upload.state_dir; `moonrunner upload` and the web app ask it on upload.admin_socket. \
            Reads the upload: section of moonrunner.yaml (and socket.path); an invalid value exits with 78.
            """,
        version: "moonrunner-upload \(MoonRunnerRelease.version)")

    static let defaultConfig = "/etc/moonrunner/moonrunner.yaml"

    @Option(help: ArgumentHelp("Configuration file (default: \(defaultConfig) when it exists).", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("Control socket (default: $MOONRUNNER_SOCKET, else socket.path).", valueName: "path"))
    var socket: String?

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Overrides upload.state_dir.", valueName: "dir"))
    var stateDir: String?

    @Option(name: .customLong("admin-socket"), help: ArgumentHelp("Overrides upload.admin_socket.", valueName: "path"))
    var adminSocket: String?

    @Option(help: ArgumentHelp("networkmanager or none; overrides upload.network_source.", valueName: "source"))
    var network: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error.", valueName: "level"))
    var logLevel = "notice"

    public func run() async throws {
        let settings: UploadSettings
        do {
            settings = try loadSettings()
        } catch {
            FileHandle.standardError.write(Data("moonrunner-upload: \(error)\n".utf8))
            throw ExitCode(ConfigError.exitCode)
        }
        var logger = Logger(label: "moonrunner-upload")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .notice
        let ledger: Ledger
        do {
            ledger = try Ledger(directory: settings.stateDir)
        } catch {
            FileHandle.standardError.write(Data("moonrunner-upload: cannot open the ledger in \(settings.stateDir): \(error)\n".utf8))
            throw ExitCode(ConfigError.exitCode)
        }
        let client = HTTP.makeClient()
        let http = HTTP(client: client)
        let queue = UploadQueue(ledger: ledger, settings: settings, targets: Self.targets(http, settings),
                                source: DaemonSource(link: SocketDaemonLink(path: settings.socketPath), logger: logger), logger: logger)
        let desk = UploadDesk(queue: queue, ledger: ledger, settings: settings, http: http)
        let services: [any Service] = [QueueService(queue: queue, settings: settings, client: client),
                                       UploadServer(settings: settings, desk: desk, logger: logger)]
        let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) },
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        logger.notice("working the queue in \(settings.stateDir); daemon at \(settings.socketPath)")
        try await group.run()
    }

    public static func targets(_ http: HTTP, _ s: UploadSettings) -> [any UploadTarget] {
        [StravaTarget(http: http, settings: s.target(.strava)), IntervalsTarget(http: http, settings: s.target(.intervals)),
         FitTrackeeTarget(http: http, settings: s.target(.fittrackee)), WebDAVTarget(http: http, settings: s.target(.webdav))]
    }

    private func loadSettings() throws(ConfigError) -> UploadSettings {
        var s = UploadSettings()
        let file = config ?? (FileManager.default.fileExists(atPath: Self.defaultConfig) ? Self.defaultConfig : nil)
        if let file { s = try UploadConfigReader.load(path: file, into: s) }
        s.socketPath = try UploadConfigReader.path("--socket", socket ?? ProcessInfo.processInfo.environment["MOONRUNNER_SOCKET"] ?? s.socketPath)
        if let stateDir { s.stateDir = try UploadConfigReader.path("--state-dir", stateDir) }
        if let adminSocket { s.adminSocket = try UploadConfigReader.path("--admin-socket", adminSocket) }
        if let network {
            guard let source = UploadSettings.NetworkSource(rawValue: network) else {
                throw ConfigError(key: "--network", value: network, allowed: "networkmanager or none")
            }
            s.networkSource = source
        }
        return s
    }
}

/// The queue as a service: the network watch feeding it (in order, through
/// one stream: a task per view could let "down" overtake "up"), the queue
/// worked until the service group stops, the HTTP client shut down after.
struct QueueService: Service {
    let queue: UploadQueue
    let settings: UploadSettings
    let client: HTTPClient

    func run() async throws {
        let watch = NetworkManagerWatch()
        let (views, feed) = AsyncStream<NetworkView>.makeStream(bufferingPolicy: .bufferingNewest(8))
        if settings.networkSource == .networkManager {
            watch.start { feed.yield($0) }
        }
        let queue = self.queue
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await queue.run() }
                group.addTask { for await view in views { await queue.network(view) } }
                await group.next()
                group.cancelAll()
            }
        }
        feed.finish()
        watch.stop()
        try? await client.shutdown()
    }
}
