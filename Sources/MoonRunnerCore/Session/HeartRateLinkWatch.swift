/// What the heart-rate strap's link is doing, as `STATUS.hr_state` says it.
public enum HeartRateLinkState: String, Sendable, Codable, CaseIterable {
    /// No strap configured.
    case none
    /// Looking for the strap, connecting, or waiting for bluetoothd: never delivered yet.
    case searching
    /// Notifications are arriving (one within the last 5 s).
    case connected
    /// It had delivered, and no longer does (out of range, asleep, off, bluetoothd gone): being reconnected.
    case lost
}

/// Turns the strap's link state into the `hr_connected` and `hr_lost`
/// moments: connected each time notifications flow again, lost only after
/// having been connected (a strap still being searched for is not lost).
public struct HeartRateLinkWatch: Sendable, Equatable {
    private var last = HeartRateLinkState.none

    public init() {}

    /// The event for a new link state, if any.
    public mutating func update(_ state: HeartRateLinkState) -> SessionEventKind? {
        defer { last = state }
        switch (last, state) {
        case (.connected, .connected): return nil
        case (_, .connected): return .hrConnected
        case (.connected, .lost), (.connected, .searching): return .hrLost
        default: return nil
        }
    }
}
