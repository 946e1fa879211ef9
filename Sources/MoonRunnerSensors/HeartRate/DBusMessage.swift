import CSystemd

/// A value read from a D-Bus message, as far as BlueZ's replies and signals
/// need: this file only turns sd-bus's message reader into Swift values.
enum DBusValue: Equatable {
    case string(String)
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case bytes([UInt8])
    case array([DBusValue])
    case dict([String: DBusValue])
    case other

    var string: String? { if case let .string(s) = self { s } else { nil } }
    var bool: Bool? { if case let .bool(b) = self { b } else { nil } }
    var int: Int64? { if case let .int(i) = self { i } else { nil } }
    var strings: [String] { if case let .array(a) = self { a.compactMap(\.string) } else { [] } }
    var dict: [String: DBusValue] { if case let .dict(d) = self { d } else { [:] } }
}

/// Reading and building sd-bus messages.
enum DBusMessage {
    private static func code(_ c: Character) -> CChar { CChar(bitPattern: c.asciiValue ?? 0) }

    /// The next complete value of `m` (variants unwrapped, dictionaries with
    /// string or object-path keys as `.dict`); nil at the end of a container.
    static func read(_ m: OpaquePointer) -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(m, &type, &contents) > 0 else { return nil }
        let inner = contents.map { String(cString: $0) } ?? ""
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "a"):
            return readArray(m, of: inner)
        case UInt8(ascii: "v"):
            guard sd_bus_message_enter_container(m, code("v"), inner) > 0 else { return nil }
            defer { sd_bus_message_exit_container(m) }
            return read(m)
        default:
            return readBasic(m, type)
        }
    }

    /// A string, boolean or number (every integer width as `.int`); any other single type is skipped as `.other`.
    private static func readBasic(_ m: OpaquePointer, _ type: CChar) -> DBusValue? {
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(m, type, &p) >= 0, let p else { return nil }
            return .string(String(cString: p))
        case UInt8(ascii: "b"):
            var v: Int32 = 0
            guard sd_bus_message_read_basic(m, type, &v) >= 0 else { return nil }
            return .bool(v != 0)
        case UInt8(ascii: "y"): return readInteger(m, type, as: UInt8.self)
        case UInt8(ascii: "n"): return readInteger(m, type, as: Int16.self)
        case UInt8(ascii: "q"): return readInteger(m, type, as: UInt16.self)
        case UInt8(ascii: "i"), UInt8(ascii: "h"): return readInteger(m, type, as: Int32.self)
        case UInt8(ascii: "u"): return readInteger(m, type, as: UInt32.self)
        // `t` (uint64) is read into an Int64: its bit pattern, never a trap.
        case UInt8(ascii: "x"), UInt8(ascii: "t"): return readInteger(m, type, as: Int64.self)
        case UInt8(ascii: "d"):
            var v: Double = 0
            guard sd_bus_message_read_basic(m, type, &v) >= 0 else { return nil }
            return .double(v)
        default:
            guard sd_bus_message_skip(m, String(UnicodeScalar(UInt8(bitPattern: type)))) >= 0 else { return nil }
            return .other
        }
    }

    /// An integer of the width sd-bus stores for `type`, widened to Int64.
    private static func readInteger<T: FixedWidthInteger>(_ m: OpaquePointer, _ type: CChar, as _: T.Type) -> DBusValue? {
        var v: T = 0
        guard sd_bus_message_read_basic(m, type, &v) >= 0 else { return nil }
        return .int(Int64(v))
    }

    /// An array whose elements have the signature `inner`: bytes, a dictionary or a list.
    private static func readArray(_ m: OpaquePointer, of inner: String) -> DBusValue? {
        if inner == "y" {
            var p: UnsafeRawPointer?
            var size = 0
            guard sd_bus_message_read_array(m, code("y"), &p, &size) >= 0 else { return nil }
            guard let p, size > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: p, count: size)))
        }
        guard sd_bus_message_enter_container(m, code("a"), inner) > 0 else { return nil }
        defer { sd_bus_message_exit_container(m) }
        if inner.hasPrefix("{") {
            var out: [String: DBusValue] = [:]
            let entry = String(inner.dropFirst().dropLast())
            while sd_bus_message_enter_container(m, code("e"), entry) > 0 {
                if let key = read(m)?.string, let value = read(m) { out[key] = value }
                sd_bus_message_exit_container(m)
            }
            return .dict(out)
        }
        var out: [DBusValue] = []
        while let v = read(m) { out.append(v) }
        return .array(out)
    }

    /// A method call to BlueZ.
    static func call(_ bus: OpaquePointer, path: String, interface: String, member: String,
                     destination: String = "org.bluez") -> OpaquePointer? {
        var m: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &m, destination, path, interface, member) >= 0 else { return nil }
        return m
    }

    static func append(_ m: OpaquePointer, string s: String) {
        _ = s.withCString { sd_bus_message_append_basic(m, code("s"), $0) }
    }

    static func append(_ m: OpaquePointer, bool b: Bool) {
        var v: Int32 = b ? 1 : 0
        _ = sd_bus_message_append_basic(m, code("b"), &v)
    }

    static func open(_ m: OpaquePointer, _ type: Character, _ contents: String) {
        _ = sd_bus_message_open_container(m, code(type), contents)
    }

    static func close(_ m: OpaquePointer) {
        _ = sd_bus_message_close_container(m)
    }

    /// `SetDiscoveryFilter`'s argument: `{"UUIDs": [uuid], "Transport": "le"}`.
    static func appendDiscoveryFilter(_ m: OpaquePointer, uuid: String) {
        open(m, "a", "{sv}")
        open(m, "e", "sv")
        append(m, string: "UUIDs")
        open(m, "v", "as")
        open(m, "a", "s")
        append(m, string: uuid)
        close(m)
        close(m)
        close(m)
        open(m, "e", "sv")
        append(m, string: "Transport")
        open(m, "v", "s")
        append(m, string: "le")
        close(m)
        close(m)
        close(m)
    }

    /// `Properties.Set("org.bluez.Adapter1", "Powered", true)`'s arguments.
    static func appendSetPowered(_ m: OpaquePointer) {
        append(m, string: "org.bluez.Adapter1")
        append(m, string: "Powered")
        open(m, "v", "b")
        append(m, bool: true)
        close(m)
    }

    /// The error name of a method error reply, nil for a method return.
    static func errorName(_ m: OpaquePointer) -> String? {
        guard sd_bus_message_is_method_error(m, nil) > 0, let e = sd_bus_message_get_error(m) else { return nil }
        let name = e.pointee.name.map { String(cString: $0) } ?? "error"
        let message = e.pointee.message.map { String(cString: $0) }
        return message.map { "\(name): \($0)" } ?? name
    }

    static func member(_ m: OpaquePointer) -> String { sd_bus_message_get_member(m).map { String(cString: $0) } ?? "" }
    static func path(_ m: OpaquePointer) -> String { sd_bus_message_get_path(m).map { String(cString: $0) } ?? "" }
}
