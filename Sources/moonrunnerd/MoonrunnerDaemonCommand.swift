import ArgumentParser
import Foundation
import Logging
import MoonRunnerConfig
import MoonRunnerCore
import MoonRunnerDaemon
import MoonRunnerProtocol
import MoonRunnerUpload
import MoonRunnerWeb

@main
enum MoonrunnerDaemonMain {
    /// Called as `moonrunner-web` (the package's link to this file) it is the
    /// web app, in its own process, under its own user and sandbox; the daemon
    /// never runs a line of it. One executable holds both so that they share
    /// the Swift runtime, Foundation and ICU's data (75 MB less on
    /// the SD card than two files).
    static func main() async {
        MemoryBudget.apply()
        if CommandLine.arguments.first?.split(separator: "/").last == "moonrunner-web" {
            LoggingSystem.bootstrap { JournalLogHandler.standardOutput(label: $0, level: .info) }
            await WebAppCommand.main()
            return
        }
        if CommandLine.arguments.first?.split(separator: "/").last == "moonrunner-upload" {
            LoggingSystem.bootstrap { JournalLogHandler.standardOutput(label: $0, level: .info) }
            await UploadCommand.main()
            return
        }
        await MoonrunnerDaemonCommand.main(processArguments())
    }

    /// The command line without the program's name. Swift reads it when its
    /// runtime starts; an LD_PRELOAD shim whose constructor loads libraries
    /// first (libfaketime, which tests and Pis without a clock use) leaves that
    /// empty, so the kernel's copy is read then.
    static func processArguments() -> [String] {
        let args = CommandLine.arguments
        if !args.isEmpty { return Array(args.dropFirst()) }
        guard let raw = FileManager.default.contents(atPath: "/proc/self/cmdline") else { return [] }
        // NUL-terminated arguments: the split leaves one empty piece after the last.
        var parts = raw.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if parts.last == "" { parts.removeLast() }
        return Array(parts.dropFirst())
    }
}

struct MoonrunnerDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moonrunnerd",
        abstract: "The MoonRunner daemon: GPS + IMU → steps, auto-pause, distance → journaled sessions.",
        discussion: """
            Flags override the configuration file (moonrunner.yaml(5); the package's is \
            /etc/moonrunner/moonrunner.yaml). An invalid value exits with code 78 (EX_CONFIG), naming the key.

            Under systemd (moonrunnerd.service, Type=notify) it sends READY=1 once the store is open and the \
            control socket listens, STATUS= every second and WATCHDOG=1; moonrunnerd.socket may pass the socket. \
            SIGTERM or SIGINT commits the session and exits; after a crash or power cut the next start resumes \
            the open session or closes it with everything committed.

            Files: the store in the state directory (/var/lib/moonrunner: moonrunner.journal, moonrunner.sqlite), \
            the control socket (/run/moonrunner/moonrunner.sock). Clients: moonrunner(1), moonrunner-announce(1).
            """,
        version: "moonrunnerd \(MoonRunnerRelease.version)")

    @Option(help: "Configuration file (YAML).") var config: String?
    @Option(help: "State directory (database).") var stateDir: String?
    @Option(help: "Control socket path.") var socket: String?
    @Option(help: "gpsd address as HOST:PORT.") var gpsd: String?
    @Option(help: "IMU source: none, i2c:/dev/i2c-1@0x68 or replay:FILE[,speed=N][,loop].") var imu: String?
    @Option(help: "Barometer source: none, i2c:/dev/i2c-1@0x76 or replay:FILE[,speed=N][,loop].") var baro: String?
    @Option(help: "Heart-rate strap: none, ble:auto, ble:AA:BB:CC:DD:EE:FF or replay:FILE[,speed=N].") var hr: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: String?

    /// The file (if any), then the flags, then the checks that need the file system.
    func loadConfig() throws(ConfigError) -> DaemonConfig {
        var c = DaemonConfig()
        if let path = config { c = try ConfigLoader.load(path: path) }
        c = try ConfigOverrides(stateDir: stateDir, socketPath: socket, gpsd: gpsd, imu: imu, baro: baro, hr: hr,
                               logLevel: logLevel)
            .apply(to: c)
        try DaemonConfigValidator.validateAtStart(c)
        return c
    }

    func run() async throws {
        let effective: DaemonConfig
        switch Result(catching: { () throws(ConfigError) -> DaemonConfig in try loadConfig() }) {
        case let .success(c):
            effective = c
        case let .failure(error):
            FileHandle.standardError.write(Data("moonrunnerd: \(error)\n".utf8))
            throw ExitCode(ConfigError.exitCode)
        }
        let level = Logger.Level(rawValue: effective.logLevel) ?? .info
        LoggingSystem.bootstrap { label in JournalLogHandler.standardError(label: label, level: level) }
        let logger = Logger(label: "moonrunnerd")
        do {
            try await Daemon.main(config: effective, logger: logger)
        } catch let error as ConfigError {
            logger.critical("\(error)")
            throw ExitCode(ConfigError.exitCode)
        } catch {
            logger.critical("moonrunnerd failed: \(error)")
            throw ExitCode(1)
        }
    }
}
