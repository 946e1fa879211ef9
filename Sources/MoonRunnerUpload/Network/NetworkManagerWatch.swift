import CSystemd
import Foundation

/// What NetworkManager says of the network now: whether the Pi is connected
/// (NM's `State` at least `CONNECTED_LOCAL`, 50: a FitTrackee or Nextcloud
/// at home is reached without the internet) and the names of the primary
/// connection: its profile's `Id` and, on Wi-Fi, the access point's SSID.
public struct NetworkView: Sendable, Equatable {
    public var up: Bool
    public var names: [String]

    public init(up: Bool, names: [String]) {
        self.up = up
        self.names = names
    }
}

/// Reads NetworkManager's D-Bus API on the system bus (`DBUS_SYSTEM_BUS_ADDRESS`
/// when set, as sd-bus does; tests put a stand-in on a private bus):
/// `org.freedesktop.NetworkManager` `State` and `PrimaryConnection`, that
/// connection's `Id`, `Type` and `SpecificObject`, and the access point's
/// `Ssid`. It runs on a thread of its own, blocked in `sd_bus_wait` until NM
/// signals a change (`StateChanged`, `PropertiesChanged`) or a minute passes,
/// then reads again and reports a view that differs from the last. This file
/// only turns sd-bus calls into views; the queue decides what they allow.
public final class NetworkManagerWatch: @unchecked Sendable {
    static let service = "org.freedesktop.NetworkManager"
    static let root = "/org/freedesktop/NetworkManager"
    private let lock = NSLock()
    private var stopped = false
    /// A bus address to use instead of the system bus's (tests: a private bus).
    private let address: String?

    public init(address: String? = nil) {
        self.address = address
    }

    /// Starts the thread; `report` gets the first view at once and each change after.
    public func start(report: @escaping @Sendable (NetworkView) -> Void) {
        let thread = Thread { [self] in self.loop(report) }
        thread.name = "nm-watch"
        thread.start()
    }

    public func stop() {
        lock.withLock { stopped = true }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func loop(_ report: @escaping @Sendable (NetworkView) -> Void) {
        var last: NetworkView?
        while !isStopped {
            guard let b = open() else {
                let down = NetworkView(up: false, names: [])
                if last != down {
                    last = down
                    report(down)
                }
                Thread.sleep(forTimeInterval: 5)
                continue
            }
            _ = sd_bus_add_match(b, nil, "type='signal',sender='\(Self.service)'", { _, _, _ in 0 }, nil)
            while !isStopped {
                let view = Self.read(b)
                if view != last {
                    last = view
                    report(view)
                }
                // Signals that came in while reading were queued, not left on the socket:
                // when any was handled the state is read again before waiting.
                var handled = false
                var r = sd_bus_process(b, nil)
                while r > 0 {
                    handled = true
                    r = sd_bus_process(b, nil)
                }
                if r < 0 { break }
                if !handled, sd_bus_wait(b, 60_000_000) < 0 { break }
            }
            sd_bus_flush_close_unref(b)
        }
    }

    /// The system bus, or the bus at `address`, connected as a client; nil when it cannot be reached.
    private func open() -> OpaquePointer? {
        var bus: OpaquePointer?
        guard let address else { return sd_bus_open_system(&bus) >= 0 ? bus : nil }
        guard sd_bus_new(&bus) >= 0, let b = bus else { return nil }
        guard sd_bus_set_address(b, address) >= 0, sd_bus_set_bus_client(b, 1) >= 0, sd_bus_start(b) >= 0 else {
            sd_bus_flush_close_unref(b)
            return nil
        }
        return b
    }

    /// One reading of NetworkManager's state; down with no names when it is not there.
    static func read(_ b: OpaquePointer) -> NetworkView {
        guard let state = uint32(b, root, service, "State") else { return NetworkView(up: false, names: []) }
        guard state >= 50, let primary = objectPath(b, root, service, "PrimaryConnection"), primary != "/" else {
            return NetworkView(up: state >= 50, names: [])
        }
        let active = service + ".Connection.Active"
        var names: [String] = []
        if let id = string(b, primary, active, "Id") { names.append(id) }
        if string(b, primary, active, "Type") == "802-11-wireless", let ap = objectPath(b, primary, active, "SpecificObject"),
           ap != "/", let ssid = bytes(b, ap, service + ".AccessPoint", "Ssid") {
            let name = String(decoding: ssid, as: UTF8.self)
            if !names.contains(name) { names.insert(name, at: 0) }
        }
        return NetworkView(up: true, names: names)
    }

    /// The reply of `Properties.Get`, which `sd_bus_get_property` leaves entered into its variant
    /// of `type` (entering it again fails: every reading would be "down"); nil on any failure.
    private static func property<T>(_ b: OpaquePointer, _ path: String, _ iface: String, _ member: String, _ type: String,
                                    _ read: (OpaquePointer) -> T?) -> T? {
        var reply: OpaquePointer?
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        guard sd_bus_get_property(b, service, path, iface, member, &error, &reply, type) >= 0, let m = reply else { return nil }
        defer { sd_bus_message_unref(m) }
        return read(m)
    }

    static func uint32(_ b: OpaquePointer, _ path: String, _ iface: String, _ member: String) -> UInt32? {
        property(b, path, iface, member, "u") { m in
            var v: UInt32 = 0
            return sd_bus_message_read_basic(m, CChar(UInt8(ascii: "u")), &v) > 0 ? v : nil
        }
    }

    static func string(_ b: OpaquePointer, _ path: String, _ iface: String, _ member: String) -> String? {
        text(b, path, iface, member, "s")
    }

    static func objectPath(_ b: OpaquePointer, _ path: String, _ iface: String, _ member: String) -> String? {
        text(b, path, iface, member, "o")
    }

    private static func text(_ b: OpaquePointer, _ path: String, _ iface: String, _ member: String, _ type: String) -> String? {
        property(b, path, iface, member, type) { m in
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(m, CChar(bitPattern: type.utf8.first ?? UInt8(ascii: "s")), &p) > 0, let p else { return nil }
            return String(cString: p)
        }
    }

    static func bytes(_ b: OpaquePointer, _ path: String, _ iface: String, _ member: String) -> [UInt8]? {
        property(b, path, iface, member, "ay") { m in
            var p: UnsafeRawPointer?
            var size = 0
            guard sd_bus_message_read_array(m, CChar(UInt8(ascii: "y")), &p, &size) >= 0 else { return nil }
            guard let p, size > 0 else { return [] }
            return Array(UnsafeRawBufferPointer(start: p, count: size))
        }
    }
}
