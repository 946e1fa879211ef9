import ArgumentParser
import CMalloc
import Foundation
import Logging
import MoonRunnerClient
import MoonRunnerConfig
import MoonRunnerCore
import MoonRunnerProtocol

/// `moonrunner-web`: the phone's screen, a client of moonrunnerd's control
/// socket. Reads its options and settings, builds the application and runs
/// it until SIGTERM or SIGINT; nothing else happens here. A library type so
/// that the daemon's executable can run it when called as `moonrunner-web`
/// (the package's link): the two share one copy of the Swift runtime,
/// Foundation and ICU's 34 MB, as two processes under two users.
public struct WebAppCommand: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "moonrunner-web",
        abstract: "Serve the live run, history, courses and downloads to a phone's browser.",
        discussion: """
            A client of moonrunnerd's control socket (one ?WATCH for every phone). Reads the web: section \
            of moonrunner.yaml (and socket.path); an invalid value exits with 78 and names the key. \
            Phones pair with a code from `moonrunner web pair`.
            """,
        version: "moonrunner-web \(MoonRunnerRelease.version)")

    static let defaultConfig = "/etc/moonrunner/moonrunner.yaml"

    @Option(help: ArgumentHelp("Configuration file (default: \(defaultConfig) when it exists).", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("HOST:PORT to listen on; overrides web.listen.", valueName: "address"))
    var listen: String?

    @Option(help: ArgumentHelp("Control socket (default: $MOONRUNNER_SOCKET, else socket.path of the file, else "
        + "/run/moonrunner/moonrunner.sock).", valueName: "path"))
    var socket: String?

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Paired devices live here; overrides web.state_dir.",
                                                                valueName: "dir"))
    var stateDir: String?

    @Option(name: .customLong("admin-socket"), help: ArgumentHelp("Overrides web.admin_socket.", valueName: "path"))
    var adminSocket: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error.", valueName: "level"))
    var logLevel = "notice"

    public func run() async throws {
        // Everything this app writes is UTC (the pages' times, the Date header): GMT as its own
        // zone keeps ICU's time zone data out of its memory (2.3 MB of RSS, measured).
        setenv("TZ", "GMT", 1)
        let settings: WebSettings
        do {
            settings = try loadSettings()
            try WebConfigReader.validateAtStart(settings)
        } catch {
            FileHandle.standardError.write(Data("moonrunner-web: \(error)\n".utf8))
            throw ExitCode(ConfigError.exitCode)
        }
        var logger = Logger(label: "moonrunner-web")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .notice
        let devices: DeviceStore
        do {
            devices = try DeviceStore(directory: settings.stateDir, codeLifetime: settings.pairingCodeTTL)
        } catch {
            FileHandle.standardError.write(Data("moonrunner-web: invalid configuration: web.state_dir: \(settings.stateDir) — \(error)\n".utf8))
            throw ExitCode(ConfigError.exitCode)
        }
        let link = SocketDaemonLink(path: settings.socketPath)
        let app = try await buildApplication(settings: settings, link: link, devices: devices, logger: logger)
        // Start-up's scratch memory (the static files gzipped at level 9, the
        // templates compiled) goes back to the system before the first phone.
        _ = Assets.version
        _ = malloc_trim(0)
        logger.notice("listening on http://\(settings.listenDescription), daemon at \(settings.socketPath)")
        try await app.runService()
    }

    private func loadSettings() throws(ConfigError) -> WebSettings {
        var s = WebSettings()
        let file = config ?? (FileManager.default.fileExists(atPath: Self.defaultConfig) ? Self.defaultConfig : nil)
        if let file { s = try WebConfigReader.load(path: file, into: s) }
        if let listen { (s.host, s.port) = try WebConfigReader.listen("--listen", listen) }
        s.socketPath = try WebConfigReader.socketPath("--socket", SocketPath.resolve(socket, configured: s.socketPath))
        if let stateDir { s.stateDir = try WebConfigReader.path("--state-dir", stateDir) }
        if let adminSocket { s.adminSocket = try WebConfigReader.socketPath("--admin-socket", adminSocket) }
        return s
    }
}
