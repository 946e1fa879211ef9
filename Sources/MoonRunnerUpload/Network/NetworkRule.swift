/// Whether uploads may go out on the network NetworkManager reports: the
/// Pi must be connected, and when `upload.networks` lists names, the
/// primary connection's SSID or profile name must be one of them, so that a
/// phone's hotspot mid-run spends no mobile data. Names compare exactly, as
/// NetworkManager shows them (SSIDs are case-sensitive bytes). A value: the
/// queue keeps the last answer and tries every waiting job at once when
/// `returned` says the network came back.
public struct NetworkRule: Sendable, Equatable {
    /// The listed networks; empty: any network will do.
    public var networks: [String]

    public init(networks: [String]) {
        self.networks = networks
    }

    public func allows(_ view: NetworkView) -> Bool {
        view.up && (networks.isEmpty || view.names.contains(where: networks.contains))
    }

    /// True when `view` allows uploads and the network before it did not.
    public func returned(to view: NetworkView, allowedBefore: Bool) -> Bool {
        allows(view) && !allowedBefore
    }
}
