import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerAnnounceCore
import MoonRunnerClient
import MoonRunnerConfig
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSystem
import MoonRunnerThreads

/// `moonrunner-announce`: speaks what the daemon's watchers hear. Its `main()`
/// runs from the `moonrunner-announce` executable and from `moonrunner` when
/// called by that name (the package's /usr/bin/moonrunner-announce is a link
/// to /usr/bin/moonrunner: one Swift runtime on the wearer's SD card, not two).
public struct AnnounceCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "moonrunner-announce",
        abstract: "Speak the live session: splits, pauses, laps, badges, course, GPS, a summary at stop.",
        discussion: """
            A client of moonrunnerd's control socket (?WATCH), and of moonrunner-upload's for the uploads it \
            says (announce.uploads). Speaks with espeak-ng through ALSA (aplay), \
            or with --output writes each announcement as NNNN.wav with its text in NNNN.txt. \
            Reconnects when the daemon restarts; announcements that cannot start within max_delay_s are dropped. \
            An invalid configuration exits with 78 and names the key.
            """,
        version: "moonrunner-announce \(MoonRunnerRelease.version)")

    static let defaultConfig = "/etc/moonrunner/announce.yaml"

    @Option(help: ArgumentHelp("Control socket (default: $MOONRUNNER_SOCKET or /run/moonrunner/moonrunner.sock).",
                               valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("Configuration file (default: \(defaultConfig) when it exists).", valueName: "file"))
    var config: String?

    static let defaultUploadSocket = "/run/moonrunner-upload/upload.sock"

    @Option(name: .customLong("upload-socket"),
            help: ArgumentHelp("moonrunner-upload's socket, whose uploads are said (default: $MOONRUNNER_UPLOAD_SOCKET "
                + "or \(defaultUploadSocket)).", valueName: "path"))
    var uploadSocket: String?

    @Option(help: ArgumentHelp("en or cmn (Mandarin); overrides the file's language.", valueName: "language"))
    var language: String?

    @Option(help: ArgumentHelp("Write NNNN.wav and NNNN.txt here instead of playing.", valueName: "dir"))
    var output: String?

    public func run() throws {
        let settings: AnnounceSettings
        do {
            settings = try loadSettings()
        } catch {
            Log.line("\(error)")
            throw ExitCode(ConfigError.exitCode)
        }
        var directory: URL?
        if let output {
            let url = URL(fileURLWithPath: output)
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                Log.line("cannot create --output \(output): \(fileErrorText(error))")
                throw ExitCode(73)
            }
            directory = url
        }
        let path = SocketPath.resolve(socket)

        // SIGPIPE from a sound player that died is an error code, not the end;
        // SIGTERM and SIGINT are taken by sigwait below, in this thread only.
        signal(SIGPIPE, SIG_IGN)
        var stops = sigset_t()
        sigemptyset(&stops)
        for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&stops, s) }
        pthread_sigmask(SIG_BLOCK, &stops, nil)

        let shared = Shared(settings: settings)
        let speaker = Speaker(settings: settings, output: directory)
        NamedThread.start(name: "speaker") { speaker.run(shared) }
        NamedThread.start(name: "watch") { WatchLoop(socket: path, shared: shared).run() }
        if settings.uploads {
            let uploads = uploadSocket ?? ProcessInfo.processInfo.environment["MOONRUNNER_UPLOAD_SOCKET"] ?? Self.defaultUploadSocket
            NamedThread.start(name: "uploads") { UploadWatchLoop(socket: uploads, shared: shared).run() }
        }
        Log.line("speaking \(settings.language.announcerName) (voice \(settings.espeakVoice)) "
            + (directory.map { "into \($0.path)" } ?? "on ALSA device \(settings.alsaDevice)"))
        var received: Int32 = 0
        sigwait(&stops, &received)
        Log.line("stopping (signal \(received))")
    }

    private func loadSettings() throws(ConfigError) -> AnnounceSettings {
        var settings = AnnounceSettings()
        let file = config ?? (FileManager.default.fileExists(atPath: Self.defaultConfig) ? Self.defaultConfig : nil)
        if let file {
            settings = try AnnounceConfigReader.read(ConfigFile.mapping(at: file), source: file)
        }
        if let language {
            settings.language = try AnnounceConfigReader.language("--language", language)
        }
        return settings
    }
}
