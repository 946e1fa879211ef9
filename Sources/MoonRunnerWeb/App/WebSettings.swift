import Foundation
import MoonRunnerCore

/// Where map tiles come from, if anywhere (`web.tiles`).
public enum TileSource: Sendable, Equatable {
    /// The SVG route on no background: nothing leaves the Pi.
    case none
    /// A raster MBTiles file the Pi serves itself at `/tiles/z/x/y`.
    case mbtiles(path: String)
    /// A URL template with `{z}`, `{x}`, `{y}` that the phone loads directly.
    case url(template: String)

    /// The host a phone loads tiles from (for the Content-Security-Policy); nil when the Pi serves them.
    public var remoteOrigin: String? {
        guard case let .url(template) = self, let scheme = template.range(of: "://") else { return nil }
        let rest = template[scheme.upperBound...]
        let host = rest.prefix { $0 != "/" }
        return String(template[..<scheme.upperBound]) + host
    }
}

/// The web app's settings: the `web:` section of `moonrunner.yaml` and the
/// one daemon key it shares (`socket.path`), then the command line.
public struct WebSettings: Sendable, Equatable {
    /// Where the HTTP server listens: all addresses on the Pi (the phone is on
    /// its Wi-Fi); `make run` and the tests use loopback.
    public var host = "0.0.0.0"
    public var port = 8080
    /// The daemon's control socket (`socket.path`, `--socket`, `$MOONRUNNER_SOCKET`).
    public var socketPath = "/run/moonrunner/moonrunner.sock"
    /// The paired devices and the key their CSRF tokens are made with.
    public var stateDir = "/var/lib/moonrunner-web"
    /// `moonrunner web pair|devices|revoke` talk to this socket.
    public var adminSocket = "/run/moonrunner-web/admin.sock"
    /// moonrunner-upload's socket: the uploads page asks it (`web.upload_socket`).
    public var uploadSocket = "/run/moonrunner-upload/upload.sock"
    /// Besides root and the web app's own user, members of this group may pair and revoke.
    public var adminGroup = "moonrunner"
    /// What `moonrunner web pair` prints as the address; empty: from the listen address.
    public var publicURL = ""
    public var tiles = TileSource.none
    /// Shown under a tiled map (the tiles' licence usually asks for it).
    public var tileAttribution = ""
    /// Debian's libjs-leaflet; used only with tiles.
    public var leafletDir = "/usr/share/javascript/leaflet"
    /// A pairing code works once and for this long, seconds (the issue: 10 minutes).
    public var pairingCodeTTL = 600.0
    /// A connection that sends nothing for this long is closed (a slow or stuck
    /// client cannot hold one open), seconds.
    public var idleTimeout = 30.0
    /// A request body (a course upload) must arrive within this many seconds.
    public var bodyTimeout = 60.0
    /// Request header bytes at most (a bigger head is refused with 400).
    public var maxHeaderBytes = 16 * 1024
    /// Open HTTP connections at most (phones, their live streams and tabs).
    public var maxConnections = 64

    public init() {}

    /// The address the phone is told about when nothing else is configured.
    public var listenDescription: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}
