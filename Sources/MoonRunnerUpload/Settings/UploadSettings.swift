import MoonRunnerCore

/// Where finished sessions go: one case per service, named as the config
/// file, the ledger and the socket name them.
public enum TargetKind: String, Sendable, CaseIterable, Codable, Comparable {
    case strava, intervals, fittrackee, webdav

    /// As the phone and the CLI name it.
    public var title: String {
        switch self {
        case .strava: "Strava"
        case .intervals: "intervals.icu"
        case .fittrackee: "FitTrackee"
        case .webdav: "WebDAV"
        }
    }

    public static func < (a: TargetKind, b: TargetKind) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }
}

/// One target's part of the `upload:` section: whether it may be used, whether
/// the privacy zones apply to it, and where its service is (tests point these at
/// stand-ins on loopback; a Pi keeps the defaults or its own server's address).
public struct TargetSettings: Sendable, Equatable {
    /// False: never queued, whatever is connected.
    public var enabled = true
    /// Off by default for Strava (it hides the ends of a track itself), on for the others.
    public var privacyZones: Bool
    /// The service's address: Strava's and intervals.icu's own, the FitTrackee server's, the WebDAV folder's.
    public var url: String
    /// Where the phone's browser is sent to grant access (Strava: its own site, not the API's host).
    public var authorizeURL: String
    /// WebDAV only: a GPX file beside the FIT file.
    public var gpx = false

    public init(privacyZones: Bool, url: String, authorizeURL: String = "") {
        self.privacyZones = privacyZones
        self.url = url
        self.authorizeURL = authorizeURL
    }
}

/// The `upload:` section of `moonrunner.yaml` and `socket.path`: what
/// moonrunner-upload reads at start.
public struct UploadSettings: Sendable, Equatable {
    /// The daemon's control socket.
    public var socketPath = "/run/moonrunner/moonrunner.sock"
    /// The ledger, the queue and the credentials (a directory of this service's user only).
    public var stateDir = "/var/lib/moonrunner-upload"
    /// `moonrunner upload …` and the web app ask here.
    public var adminSocket = "/run/moonrunner-upload/upload.sock"
    /// Besides root and this service's user, members of this group may ask (the web app's user is one).
    public var adminGroup = "moonrunner"
    /// Only while connected to one of these Wi-Fi networks (names as NetworkManager shows them); empty: any.
    public var networks: [String] = []
    /// `networkmanager`: its D-Bus API says when the network is up and which; `none`: always assumed up.
    public var networkSource = NetworkSource.networkManager
    public var privacyZones: [PrivacyZone] = []
    /// The first retry waits this long, seconds; each next one twice as long, up to `longestWait`.
    public var firstWait = 5.0
    public var longestWait = 900.0
    /// Attempts after which a job is given up (a person can still retry it).
    public var maxAttempts = 40
    public var targets: [TargetKind: TargetSettings] = [
        .strava: TargetSettings(privacyZones: false, url: "https://www.strava.com",
                                authorizeURL: "https://www.strava.com/oauth/authorize"),
        .intervals: TargetSettings(privacyZones: true, url: "https://intervals.icu"),
        .fittrackee: TargetSettings(privacyZones: true, url: ""),
        .webdav: TargetSettings(privacyZones: true, url: ""),
    ]

    public enum NetworkSource: String, Sendable, CaseIterable {
        case networkManager = "networkmanager"
        case none
    }

    public init() {}

    public func target(_ kind: TargetKind) -> TargetSettings {
        targets[kind] ?? TargetSettings(privacyZones: true, url: "")
    }

    /// The zones that apply to what is sent to `kind` (none when its switch is off).
    public func zones(for kind: TargetKind) -> [PrivacyZone] {
        target(kind).privacyZones ? privacyZones : []
    }
}
