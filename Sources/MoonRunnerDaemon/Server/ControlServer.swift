import Foundation
import Logging
import MoonRunnerProtocol
import MoonRunnerSensors
import NIOCore
import NIOPosix
import Synchronization

/// The control socket: a Unix stream socket speaking the line protocol of
/// `MoonRunnerProtocol`. Each connection is its own task; requests go to
/// the `SessionService` actor, so a slow client never holds up the sensors,
/// and replies leave through a bounded queue, so a watcher that stops reading
/// is dropped instead of growing the daemon.
public final class ControlServer: Sendable {
    private let config: DaemonConfig
    private let service: SessionService
    private let logger: Logger
    private let policy: PeerPolicy
    private let clients = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(1)

    /// Outgoing lines queued for one client before it counts as not reading.
    static let outgoingLimit = 256

    public init(config: DaemonConfig, service: SessionService, logger: Logger) {
        self.config = config
        self.service = service
        self.logger = logger
        policy = PeerPolicy(controlGroup: config.controlGroup)
    }

    /// One accepted connection with what we know about its peer.
    struct Connection: Sendable {
        var io: NIOAsyncChannel<InboundLine, ByteBuffer>
        var channel: any Channel
        var peer: PeerCredentials?
    }

    /// Binds (or adopts a socket-activated descriptor) and serves until cancelled.
    public func run(listenFD: CInt?) async throws {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
        let maxLine = config.maxLineBytes
        let idle = TimeAmount.milliseconds(Int64(config.idleTimeout * 1000))
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { channel in
            Self.peerCredentials(of: channel).flatMapThrowing { peer in
                try channel.pipeline.syncOperations.addHandler(IdleStateHandler(allTimeout: idle))
                try channel.pipeline.syncOperations.addHandler(IdleCloser())
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLength: maxLine)))
                let io = try NIOAsyncChannel<InboundLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                return Connection(io: io, channel: channel, peer: peer)
            }
        }
        let server: NIOAsyncChannel<Connection, Never>
        if let fd = listenFD {
            server = try await bootstrap.bind(fd, childChannelInitializer: initializer)
            logger.info("control socket: using the socket passed by systemd (fd \(fd))")
        } else {
            let dir = (config.socketPath as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o750])
            server = try await bootstrap.bind(unixDomainSocketPath: config.socketPath, cleanupExistingSocketFile: true,
                                              childChannelInitializer: initializer)
            chmod(config.socketPath, mode_t(config.socketMode))
            logger.info("control socket: \(config.socketPath)")
        }
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { inbound in
                for try await connection in inbound {
                    group.addTask { await self.serve(connection) }
                }
            }
        }
    }

    private static func peerCredentials(of channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET),
                                                                            name: SocketOptionName(SO_PEERCRED))
        return future.map { Optional($0) }.recover { _ in nil }
    }

    private func serve(_ connection: Connection) async {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let count = clients.wrappingAdd(1, ordering: .relaxed).newValue
        defer { clients.wrappingSubtract(1, ordering: .relaxed) }
        let tooMany = count > config.maxClients
        let channel = connection.channel
        do {
            try await connection.io.executeThenClose { inbound, outbound in
                let (queue, sink) = AsyncStream.makeStream(of: String.self,
                                                           bufferingPolicy: .bufferingOldest(Self.outgoingLimit))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await line in queue {
                            var buffer = ByteBuffer(string: line)
                            buffer.writeInteger(UInt8(ascii: "\n"))
                            try await outbound.write(buffer)
                        }
                    }
                    defer { sink.finish() }
                    if tooMany {
                        sink.yield(ReplyEncoder.line(ErrorReply(RequestError(.tooManyClients,
                            "too many clients (limit \(config.maxClients)); try again later"))))
                        return
                    }
                    sink.yield(ReplyEncoder.line(VersionReply()))
                    var limiter = RateLimiter(perSecond: Double(config.maxRequestsPerSecond))
                    for try await frame in inbound {
                        let reply = await respond(to: frame, id: id, peer: connection.peer, limiter: &limiter,
                                                  sink: sink, channel: channel)
                        if let reply, case .dropped = sink.yield(reply) {
                            logger.warning("client \(id) is not reading its replies; closing it")
                            break
                        }
                    }
                }
            }
        } catch {
            logger.debug("client \(id) ended: \(error)")
        }
        await service.removeWatcher(id)
    }

    private func respond(to frame: InboundLine, id: UInt64, peer: PeerCredentials?, limiter: inout RateLimiter,
                         sink: AsyncStream<String>.Continuation, channel: any Channel) async -> String? {
        let text: String
        switch frame {
        case .tooLong:
            return ReplyEncoder.line(ErrorReply(RequestError(.tooLong,
                "request line longer than \(config.maxLineBytes) bytes; it was discarded")))
        case let .line(t):
            text = t
        }
        if text.allSatisfy({ $0.isWhitespace }) { return nil }
        guard limiter.allow(at: EngineClock.monotonic()) else {
            return ReplyEncoder.line(ErrorReply(RequestError(.rateLimited,
                "more than \(config.maxRequestsPerSecond) requests per second; slow down")))
        }
        let request: Request
        do {
            request = try RequestParser.parse(text)
        } catch {
            return ReplyEncoder.line(ErrorReply(error))
        }
        if request.command.changesState && !policy.mayChangeState(peer) {
            logger.warning("refused ?\(request.command.name) from uid \(peer.map { String($0.uid) } ?? "?") pid \(peer.map { String($0.pid) } ?? "?")")
            return ReplyEncoder.line(ErrorReply(RequestError(.forbidden,
                "?\(request.command.name); needs root, the daemon's user or group \(config.controlGroup)", id: request.id)))
        }
        if case let .watch(enable) = request.command {
            if enable {
                await service.addWatcher(id) { line in
                    if case .dropped = sink.yield(line) {
                        // A watcher that does not read is dropped rather than slowing the daemon.
                        channel.close(promise: nil)
                    }
                }
            } else {
                await service.removeWatcher(id)
            }
        }
        return await service.handle(request)
    }
}

/// A token bucket per client.
struct RateLimiter: Sendable {
    let perSecond: Double
    private var tokens: Double
    private var last = -Double.infinity

    init(perSecond: Double) {
        self.perSecond = perSecond
        tokens = perSecond
    }

    mutating func allow(at now: Double) -> Bool {
        if last.isFinite { tokens = min(perSecond, tokens + (now - last) * perSecond) }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

