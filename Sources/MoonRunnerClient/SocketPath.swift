import FoundationEssentials

/// Where a client finds the control socket: the path it was given
/// (`--socket`), else `$MOONRUNNER_SOCKET`, else the path a configuration
/// file names (the web app reads `socket.path`), else the daemon's default.
/// The CLI, its completion, the announcer and the web app all ask here.
public enum SocketPath {
    public static let defaultPath = "/run/moonrunner/moonrunner.sock"

    public static func resolve(_ given: String?, configured: String? = nil,
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        given ?? environment["MOONRUNNER_SOCKET"] ?? configured ?? defaultPath
    }
}
