import CSystemd
import Glibc

/// Asks systemd-logind to power the machine off
/// (`org.freedesktop.login1.Manager.PowerOff(false)` on the system bus): a
/// flat cell would cut the power anyway, and a clean power-off lets every
/// service close its files first. The package's polkit rule lets the
/// daemon's user do this and nothing else. `DBUS_SYSTEM_BUS_ADDRESS` moves
/// the bus (tests put a stand-in of logind on a private one).
public enum LogindPowerOff {
    /// Sends the request and waits (up to `timeout` seconds) for logind's
    /// answer; nil when it was accepted, else why not. Blocks: call it off
    /// the cooperative pool.
    public static func request(timeout: Double = 25) -> String? {
        var bus: OpaquePointer?
        let opened = sd_bus_open_system(&bus)
        guard opened >= 0, let bus else { return "cannot reach the system bus: \(String(cString: strerror(-opened)))" }
        defer { sd_bus_flush_close_unref(bus) }
        guard let m = DBusMessage.call(bus, path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                                       member: "PowerOff", destination: "org.freedesktop.login1") else {
            return "cannot make the PowerOff call"
        }
        defer { sd_bus_message_unref(m) }
        // false: not interactive (no password prompt); the polkit rule decides.
        DBusMessage.append(m, bool: false)
        var error = sd_bus_error()
        var reply: OpaquePointer?
        let r = sd_bus_call(bus, m, UInt64(timeout * 1e6), &error, &reply)
        defer {
            sd_bus_error_free(&error)
            if let reply { sd_bus_message_unref(reply) }
        }
        guard r >= 0 else {
            let name = error.name.map { String(cString: $0) } ?? String(cString: strerror(-r))
            let message = error.message.map { String(cString: $0) }
            return message.map { "logind refused PowerOff: \(name): \($0)" } ?? "logind refused PowerOff: \(name)"
        }
        return nil
    }
}
