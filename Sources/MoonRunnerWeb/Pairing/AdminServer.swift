import Foundation
import Logging
import MoonRunnerProtocol
import MoonRunnerSocket
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The web app's admin socket: `moonrunner web pair|devices|revoke` ask
/// here (`WebAdminRequest`), so a revocation takes effect in the running
/// web app at once, its live views included. A Unix socket (mode 0660, in a
/// directory of its own) whose peers are checked by `SO_PEERCRED` with the
/// daemon's own `PeerPolicy`: root, the web app's user and members of
/// `web.admin_group`; anyone else gets `forbidden` for every request.
public struct AdminServer: Service {
    let settings: WebSettings
    let devices: DeviceStore
    let logger: Logger

    public init(settings: WebSettings, devices: DeviceStore, logger: Logger) {
        self.settings = settings
        self.devices = devices
        self.logger = logger
    }

    struct Connection: Sendable {
        var io: NIOAsyncChannel<InboundLine, ByteBuffer>
        var peer: PeerCredentials?
    }

    public func run() async throws {
        let path = settings.adminSocket
        try Self.prepare(path)
        let policy = PeerPolicy(controlGroup: settings.adminGroup)
        if policy.controlGroupMissing {
            logger.warning("web.admin_group \(settings.adminGroup) does not exist: only root and this user may pair phones")
        }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                PeerCredentials.of(channel).flatMapThrowing { peer in
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(IdleStateHandler(allTimeout: .seconds(30)))
                    try sync.addHandler(IdleCloseHandler())
                    try sync.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLength: 4096)))
                    return Connection(io: try NIOAsyncChannel(wrappingChannelSynchronously: channel), peer: peer)
                }
            }
        chmod(path, 0o660)
        logger.info("admin socket: \(path)")
        defer { unlink(path) }
        try? await cancelWhenGracefulShutdown {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await serve(connection, policy: policy) }
                    }
                }
            }
        }
    }

    private func serve(_ connection: Connection, policy: PeerPolicy) async {
        try? await connection.io.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: ReplyEncoder.line(VersionReply()) + "\n"))
            for try await item in inbound {
                guard case let .line(text) = item else {
                    try await outbound.write(ByteBuffer(string: ReplyEncoder.line(ErrorReply(RequestError(.tooLong, "line too long"))) + "\n"))
                    continue
                }
                guard !text.allSatisfy({ $0 == " " || $0 == "\r" || $0 == "\t" }) else { continue }
                let reply = await answer(text, peer: connection.peer, policy: policy)
                try await outbound.write(ByteBuffer(string: reply + "\n"))
            }
        }
    }

    /// The reply line to one request line.
    func answer(_ line: String, peer: PeerCredentials?, policy: PeerPolicy) async -> String {
        let request: WebAdminRequest
        do {
            request = try WebAdminRequest.parse(line)
        } catch {
            return ReplyEncoder.line(ErrorReply(error))
        }
        guard policy.mayChangeState(peer) else {
            logger.warning("admin request \(line.prefix(40)) refused to \(peer.map(\.description) ?? "an unknown peer")")
            return ReplyEncoder.line(ErrorReply(RequestError(.forbidden, "only root, the web app's user and members of "
                + "\(settings.adminGroup.isEmpty ? "no group" : settings.adminGroup) (web.admin_group) may pair and revoke phones")))
        }
        switch request {
        case .pair:
            let (code, lifetime) = await devices.issueCode()
            let compact = code.replacingOccurrences(of: "-", with: "")
            let urls = Self.baseURLs(settings).map { "\($0)/pair?code=\(compact)" }
            logger.notice("pairing code issued to \(peer.map(\.description) ?? "?") (valid \(Int(lifetime)) s)")
            return ReplyEncoder.line(PairingReply(code: code, expiresInS: lifetime, urls: urls))
        case .devices:
            return ReplyEncoder.line(DevicesReply(devices: await devices.list().map(Self.info)))
        case let .revoke(id):
            do {
                guard let device = try await devices.revoke(id: id) else {
                    return ReplyEncoder.line(ErrorReply(RequestError(.notFound, "no paired device \(id); `moonrunner web devices` lists them")))
                }
                logger.notice("device \(device.id) (\(device.name)) revoked")
                return ReplyEncoder.line(RevokedReply(device: Self.info(device)))
            } catch {
                return ReplyEncoder.line(ErrorReply(RequestError(.storeError, error.description)))
            }
        }
    }

    static func info(_ d: Device) -> DeviceInfo {
        DeviceInfo(id: d.id, name: d.name, pairedAt: d.pairedAt, lastSeen: d.lastSeen, lastAddress: d.lastAddress)
    }

    /// Where phones reach the web app: `web.public_url`, else the listen
    /// address, else (listening on all addresses) each address of the Pi's
    /// interfaces, IPv4 first, loopback last.
    static func baseURLs(_ s: WebSettings) -> [String] {
        if !s.publicURL.isEmpty { return [s.publicURL] }
        guard s.host == "0.0.0.0" || s.host == "::" else {
            return ["http://\(s.host.contains(":") ? "[\(s.host)]" : s.host):\(s.port)"]
        }
        var v4: [String] = [], v6: [String] = []
        for device in (try? System.enumerateDevices()) ?? [] {
            guard let ip = device.address?.ipAddress else { continue }
            switch device.address {
            case .v4? where !ip.hasPrefix("127."): v4.append(ip)
            case .v6? where s.host == "::" && !ip.hasPrefix("fe80") && ip != "::1": v6.append("[\(ip)]")
            default: break
            }
        }
        let hosts = Array(Set(v4)).sorted() + Array(Set(v6)).sorted() + (v4.isEmpty && v6.isEmpty ? ["127.0.0.1"] : [])
        return hosts.map { "http://\($0):\(s.port)" }
    }

    /// The socket's directory exists (0750, made if missing) and is not shared with everyone.
    static func prepare(_ path: String) throws {
        let dir = (path as NSString).deletingLastPathComponent
        var st = stat()
        if stat(dir, &st) != 0 {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o750])
        } else if st.st_mode & 0o002 != 0 && st.st_mode & S_ISVTX == 0 {
            throw DeviceStoreError("\(dir) is writable by everyone; use a directory of the web app's own for web.admin_socket")
        }
    }
}

/// Closes an admin connection idle for 30 s.
final class IdleCloseHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
