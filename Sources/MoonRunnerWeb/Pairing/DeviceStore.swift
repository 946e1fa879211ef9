import Foundation

/// A paired phone as the store keeps it: its token only as a SHA-256.
public struct Device: Codable, Sendable, Equatable {
    /// Short and stable: `moonrunner web revoke 3`.
    public var id: String
    public var name: String
    /// Hex SHA-256 of the token the phone's cookie holds.
    public var tokenSHA256: String
    /// UNIX seconds.
    public var pairedAt: Double
    public var lastSeen: Double?
    public var lastAddress: String?

    enum CodingKeys: String, CodingKey {
        case id, name, tokenSHA256 = "token_sha256", pairedAt = "paired_at", lastSeen = "last_seen",
             lastAddress = "last_address"
    }
}

/// Why a pairing attempt was refused.
public enum PairingRefusal: Error, Equatable, Sendable {
    /// Wrong or expired code; the address waits this long before its next try.
    case wrongCode(wait: Double)
    /// Too many wrong codes from this address: try again in this many seconds.
    case backingOff(wait: Double)
    /// The store could not be written; nothing was paired.
    case storeFailed(String)
}

/// The web app's own store of paired phones (`web.state_dir`): the devices
/// (tokens hashed) in `devices.json` and the key CSRF tokens are made with
/// in `csrf.key`, both readable by the web app's user only, each replaced
/// in one rename so a power cut leaves the old or the new file. Pairing
/// codes and the back-off live in memory (a restart voids open codes).
/// Revoking calls `onRevoke` at once (the live views of the device end).
public actor DeviceStore {
    private let directory: URL
    private let now: @Sendable () -> Double
    private var codes: PairingCodes
    private var throttle = PairingThrottle()
    private var devices: [Device]
    private var byHash: [String: Int]
    private var nextID: Int
    /// The key CSRF tokens are made with (32 random bytes, made once).
    public nonisolated let csrfKey: Data
    private var onRevoke: @Sendable (String) async -> Void = { _ in }
    /// `last_seen` is written to disk at most this often, seconds (not at every request: an SD card).
    static let lastSeenWriteInterval = 3600.0

    private struct File: Codable {
        var nextID: Int
        var devices: [Device]
        enum CodingKeys: String, CodingKey { case nextID = "next_id", devices }
    }

    public init(directory: String, codeLifetime: Double = 600, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 })
        throws(DeviceStoreError)
    {
        self.directory = URL(fileURLWithPath: directory)
        self.now = now
        codes = PairingCodes(lifetime: codeLifetime)
        try Self.prepare(directory)
        let file = self.directory.appendingPathComponent("devices.json")
        var loaded = File(nextID: 1, devices: [])
        if FileManager.default.fileExists(atPath: file.path) {
            do {
                loaded = try JSONDecoder().decode(File.self, from: Data(contentsOf: file))
            } catch {
                throw DeviceStoreError("\(file.path) cannot be read (\(error)); move it away to start with no paired phones")
            }
        }
        devices = loaded.devices
        nextID = max(loaded.nextID, (loaded.devices.compactMap { Int($0.id) }.max() ?? 0) + 1)
        byHash = Dictionary(loaded.devices.enumerated().map { ($0.element.tokenSHA256, $0.offset) }, uniquingKeysWith: { a, _ in a })
        csrfKey = try Self.loadKey(self.directory.appendingPathComponent("csrf.key"))
    }

    public func setOnRevoke(_ handler: @escaping @Sendable (String) async -> Void) {
        onRevoke = handler
    }

    // MARK: Pairing

    /// A new one-time code (for `moonrunner web pair`) and the seconds it works for.
    public func issueCode() -> (code: String, lifetime: Double) {
        var rng = SystemRandomNumberGenerator()
        return (codes.issue(at: now(), using: &rng), codes.lifetime)
    }

    /// Trades a code for a new device and its token (the token is returned
    /// once, for the cookie, and kept only as its hash).
    public func pair(code: String, name: String, address: String) -> Result<(Device, String), PairingRefusal> {
        let t = now()
        let wait = throttle.wait(for: address, at: t)
        guard wait == 0 else { return .failure(.backingOff(wait: wait)) }
        guard codes.redeem(code, at: t) else {
            throttle.failed(address, at: t)
            return .failure(.wrongCode(wait: throttle.wait(for: address, at: t)))
        }
        throttle.succeeded(address)
        let token = Self.base64URL(Digest.randomBytes(32))
        let cleanName = Self.clean(name)
        let device = Device(id: String(nextID), name: cleanName.isEmpty ? "phone \(nextID)" : cleanName,
                            tokenSHA256: Self.hash(token), pairedAt: t, lastSeen: t, lastAddress: address)
        nextID += 1
        devices.append(device)
        byHash[device.tokenSHA256] = devices.count - 1
        do {
            try save()
        } catch {
            devices.removeLast()
            byHash[device.tokenSHA256] = nil
            return .failure(.storeFailed(error.description))
        }
        return .success((device, token))
    }

    // MARK: Requests

    /// The device a cookie's token belongs to, nil for an unknown or revoked one.
    public func device(forToken token: String, address: String?) -> Device? {
        guard !token.isEmpty, token.utf8.count <= 128, let i = byHash[Self.hash(token)] else { return nil }
        let t = now()
        let stale = (devices[i].lastSeen ?? 0) + Self.lastSeenWriteInterval < t
        devices[i].lastSeen = t
        if let address { devices[i].lastAddress = address }
        if stale { try? save() }
        return devices[i]
    }

    public func list() -> [Device] { devices }

    /// Removes a device; its cookie stops working at the next request and its live views end now.
    public func revoke(id: String) async throws(DeviceStoreError) -> Device? {
        guard let i = devices.firstIndex(where: { $0.id == id }) else { return nil }
        let device = devices.remove(at: i)
        byHash = Dictionary(devices.enumerated().map { ($0.element.tokenSHA256, $0.offset) }, uniquingKeysWith: { a, _ in a })
        do {
            try save()
        } catch {
            devices.insert(device, at: i)
            byHash[device.tokenSHA256] = i
            byHash = Dictionary(devices.enumerated().map { ($0.element.tokenSHA256, $0.offset) }, uniquingKeysWith: { a, _ in a })
            throw error
        }
        await onRevoke(device.id)
        return device
    }

    /// Writes `last_seen` of every device (at shutdown).
    public func flush() {
        try? save()
    }

    // MARK: Files

    private func save() throws(DeviceStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(File(nextID: nextID, devices: devices))
        } catch {
            throw DeviceStoreError("the device list cannot be encoded: \(error)")
        }
        try Self.writeAtomically(data, to: directory.appendingPathComponent("devices.json"))
    }

    static func prepare(_ directory: String) throws(DeviceStoreError) {
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw DeviceStoreError("\(directory) cannot be created: \(error.localizedDescription)")
            }
        } else if !isDir.boolValue {
            throw DeviceStoreError("\(directory) is not a directory")
        }
        guard access(directory, W_OK) == 0 else {
            throw DeviceStoreError("\(directory) is not writable by this user: \(String(cString: strerror(errno)))")
        }
    }

    /// Written to a temporary file, synced, then renamed over the old one; mode 0600.
    static func writeAtomically(_ data: Data, to url: URL) throws(DeviceStoreError) {
        let temp = url.path + ".new"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DeviceStoreError("\(temp) cannot be written: \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            var done = 0
            while done < raw.count {
                let n = write(fd, base + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return -1 }
                done += n
            }
            return done
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == data.count, synced, rename(temp, url.path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temp)
            throw DeviceStoreError("\(url.path) cannot be written: \(why)")
        }
    }

    static func loadKey(_ url: URL) throws(DeviceStoreError) -> Data {
        if let data = FileManager.default.contents(atPath: url.path) {
            guard data.count == 32 else { throw DeviceStoreError("\(url.path) is not a 32-byte key; remove it to make a new one") }
            return data
        }
        let key = Data(Digest.randomBytes(32))
        try writeAtomically(key, to: url)
        return key
    }

    /// Hex SHA-256 of a token.
    static func hash(_ token: String) -> String {
        Digest.hex(Digest.sha256(Array(token.utf8)))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A device name as people type it: printable, one line, at most 60 characters.
    static func clean(_ name: String) -> String {
        let kept = name.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }
        return String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespaces).prefix(60).description
    }
}

/// The device store's folder or files cannot be used.
public struct DeviceStoreError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}
