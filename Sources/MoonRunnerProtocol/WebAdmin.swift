import FoundationEssentials
import MoonRunnerCore

/// The web app's admin socket (`web.admin_socket`): what `moonrunner web
/// pair|devices|revoke` asks moonrunner-web, in the control socket's manner
/// (a `VERSION` greeting, one request per line, one JSON reply per line,
/// `ERROR` replies with the same codes). Only root, the web app's user and
/// members of `web.admin_group` are served.
public enum WebAdminRequest: Sendable, Equatable {
    /// A new one-time pairing code and the addresses to open it at.
    case pair
    /// The paired devices.
    case devices
    /// Ends a device's pairing now (its cookie and its live views).
    case revoke(id: String)

    public var line: String {
        switch self {
        case .pair: "?PAIR;"
        case .devices: "?DEVICES;"
        case let .revoke(id): "?REVOKE=\(JSONValue.object(["id": .string(id)]).serialized);"
        }
    }

    /// Parses a request line of the admin socket.
    public static func parse(_ raw: String) throws(RequestError) -> WebAdminRequest {
        var line = Substring(raw)
        while let c = line.first, c == " " || c == "\t" { line.removeFirst() }
        while let c = line.last, c == " " || c == "\t" || c == "\r" || c == "\n" { line.removeLast() }
        guard line.first == "?" else { throw RequestError(.syntax, "a request starts with '?', e.g. ?DEVICES;") }
        line.removeFirst()
        if line.last == ";" { line.removeLast() }
        let name: Substring, params: [String: JSONValue]
        if let eq = line.firstIndex(of: "=") {
            name = line[..<eq]
            guard case let .object(o)? = try? JSONValue.parse(String(line[line.index(after: eq)...])) else {
                throw RequestError(.badJSON, "the parameters must be a JSON object, e.g. ?REVOKE={\"id\":\"2\"};")
            }
            params = o
        } else {
            name = line
            params = [:]
        }
        switch name.uppercased() {
        case "PAIR" where params.isEmpty: return .pair
        case "DEVICES" where params.isEmpty: return .devices
        case "REVOKE":
            switch params["id"] {
            case let .string(s)? where !s.isEmpty && params.count == 1: return .revoke(id: s)
            case let .number(n)? where params.count == 1 && n.rounded() == n: return .revoke(id: String(Int64(n)))
            default: throw RequestError(.badParameter, "?REVOKE takes \"id\", the device's id (moonrunner web devices lists them)")
            }
        case "PAIR", "DEVICES": throw RequestError(.badParameter, "?\(name.uppercased()) takes no parameters")
        default: throw RequestError(.unknownCommand, "unknown request ?\(name.prefix(20)); known: ?PAIR; ?DEVICES; ?REVOKE={\"id\":\"N\"};")
        }
    }
}

/// `{"class":"PAIRING",...}`: a code that works once, for `expires_in_s`.
public struct PairingReply: Codable, Sendable, Equatable {
    public var cls = "PAIRING"
    /// As a person types it: `K7QM-2XPA-9F`.
    public var code: String
    public var expiresInS: Double
    /// Where a phone pairs by opening the link (one per address of the Pi; the code is in each).
    public var urls: [String]

    public init(code: String, expiresInS: Double, urls: [String]) {
        self.code = code
        self.expiresInS = expiresInS
        self.urls = urls
    }

    enum CodingKeys: String, CodingKey { case cls = "class", code, expiresInS = "expires_in_s", urls }
}

/// A paired device as the admin socket lists it (its token never leaves the web app).
public struct DeviceInfo: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var pairedAt: Double
    @NullCoded public var lastSeen: Double?
    @NullCoded public var lastAddress: String?

    public init(id: String, name: String, pairedAt: Double, lastSeen: Double?, lastAddress: String?) {
        self.id = id
        self.name = name
        self.pairedAt = pairedAt
        self.lastSeen = lastSeen
        self.lastAddress = lastAddress
    }

    enum CodingKeys: String, CodingKey {
        case id, name, pairedAt = "paired_at", lastSeen = "last_seen", lastAddress = "last_address"
    }
}

/// `{"class":"DEVICES","devices":[...]}`, oldest pairing first.
public struct DevicesReply: Codable, Sendable, Equatable {
    public var cls = "DEVICES"
    public var devices: [DeviceInfo]

    public init(devices: [DeviceInfo]) { self.devices = devices }

    enum CodingKeys: String, CodingKey { case cls = "class", devices }
}

/// `{"class":"REVOKED","device":{...}}`: the device is out.
public struct RevokedReply: Codable, Sendable, Equatable {
    public var cls = "REVOKED"
    public var device: DeviceInfo

    public init(device: DeviceInfo) { self.device = device }

    enum CodingKeys: String, CodingKey { case cls = "class", device }
}
