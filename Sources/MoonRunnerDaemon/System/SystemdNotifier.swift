import CSystemd
import Foundation

/// sd_notify(3) and socket activation through libsystemd. Outside systemd
/// (no NOTIFY_SOCKET, no LISTEN_FDS) every call is a cheap no-op.
public struct SystemdNotifier: Sendable {
    public init() {}

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ text: String) { send("STATUS=\(text)") }
    public func watchdog() { send("WATCHDOG=1") }
    public func stopping() { send("STOPPING=1") }

    private func send(_ text: String) {
        _ = sd_notify(0, text)
    }

    /// Half the watchdog period systemd asked for (WATCHDOG_USEC), or nil.
    public var watchdogPingInterval: Double? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return Double(usec) / 2e6
    }

    /// The listening socket systemd passed (LISTEN_FDS/LISTEN_PID), or nil.
    public static func activatedSocket() -> CInt? {
        let n = sd_listen_fds(1)
        guard n >= 1 else { return nil }
        // SD_LISTEN_FDS_START: the first passed descriptor is always 3.
        let fd: CInt = 3
        guard sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else { return nil }
        return fd
    }
}
