import Foundation
import Logging
import MoonRunnerSocket
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerSystem
import NIOCore
import NIOPosix
import Synchronization

/// The control socket: a Unix stream socket speaking the line protocol of
/// `MoonRunnerProtocol`. Each connection is its own task: its lines are
/// admitted here (length, syntax, rate, the peer's right to change state) and
/// answered by the `RequestRouter`, so a slow client never holds up the
/// sensors. Replies leave through a bounded queue drained by one writer per
/// client that waits for each write to reach the kernel: a client that
/// pipelines requests faster than it reads its replies is slowed down (its
/// requests wait), a watcher that stops reading is dropped, and either costs
/// at most the queue.
final class ControlServer: Sendable {
    private let config: DaemonConfig
    private let router: RequestRouter
    private let logger: Logger
    private let policy: PeerPolicy
    private let clients = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(1)

    /// Replies queued for one client before its requests wait (it pipelines faster than it reads).
    static let replyLimit = 64
    /// Bytes of watcher lines not yet taken by the kernel before the watcher counts as not reading.
    static let watcherBacklogBytes = 32 * 1024
    /// Refused state changes logged per connection; the rest are counted.
    static let refusalsLogged = 3

    init(config: DaemonConfig, logger: Logger, router: RequestRouter) {
        self.config = config
        self.router = router
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
    func run(listenFD: CInt?) async throws {
        if policy.controlGroupMissing {
            logger.warning("socket.control_group \(config.controlGroup) does not exist: only root and the daemon's user may change state")
        }
        // On the loop the daemon's tasks run on: a reply or STATUS line is written where it is made.
        let bootstrap = ServerBootstrap(group: EventLoopTaskExecutor.daemon.loop)
            .serverChannelOption(.backlog, value: 128)
            // A client that shuts down its sending side still gets its replies.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let maxLine = config.maxLineBytes
        let idle = TimeAmount.milliseconds(Int64(config.idleTimeout * 1000))
        let farewell = ReplyEncoder.line(ErrorReply(RequestError(.idleTimeout,
            "nothing sent or received for \(Self.seconds(config.idleTimeout)) (socket.idle_timeout_s); closing; reconnect to go on")))
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { channel in
            PeerCredentials.of(channel).flatMapThrowing { peer in
                let sync = channel.pipeline.syncOperations
                try sync.addHandler(IdleStateHandler(allTimeout: idle))
                try sync.addHandler(IdleCloser(farewell: farewell))
                try sync.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLength: maxLine)))
                let io = try NIOAsyncChannel<InboundLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                return Connection(io: io, channel: channel, peer: peer)
            }
        }
        let server: NIOAsyncChannel<Connection, Never>
        var ownSocket: String?
        if let fd = listenFD {
            server = try await bootstrap.bind(fd, childChannelInitializer: initializer)
            logger.info("control socket: using the socket passed by systemd (fd \(fd))")
        } else {
            try SocketDirectory.prepare(socketPath: config.socketPath, logger: logger)
            server = try await bootstrap.bind(unixDomainSocketPath: config.socketPath, cleanupExistingSocketFile: false,
                                              childChannelInitializer: initializer)
            ownSocket = config.socketPath
            chmod(config.socketPath, mode_t(config.socketMode))
            logger.info("control socket: \(config.socketPath) (mode 0\(String(config.socketMode, radix: 8)))")
        }
        defer {
            if let path = ownSocket { unlink(path) }
        }
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { inbound in
                for try await connection in inbound {
                    group.addTask {
                        // On shutdown the connection closes, which also ends a write stuck on a client that does not read.
                        await withTaskCancellationHandler {
                            await self.serve(connection)
                        } onCancel: {
                            connection.channel.close(promise: nil)
                        }
                    }
                }
            }
        }
    }

    /// What one connection's request loop keeps between lines.
    private struct ClientState {
        let id: UInt64
        let peer: PeerCredentials?
        var limiter: RateLimiter
        var refusals = 0
        /// The router's side: where `?WATCH` lines go, the upload in progress.
        var requests: RequestRouter.Client
    }

    private func serve(_ connection: Connection) async {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let count = clients.wrappingAdd(1, ordering: .relaxed).newValue
        defer { clients.wrappingSubtract(1, ordering: .relaxed) }
        let channel = connection.channel
        let peerText = connection.peer.map(\.description) ?? "unknown peer"
        logger.debug("client \(id) connected (\(peerText))")
        let queue = OutboundQueue(replyLimit: Self.replyLimit)
        var state = ClientState(id: id, peer: connection.peer,
                                limiter: RateLimiter(perSecond: Double(config.maxRequestsPerSecond)),
                                requests: RequestRouter.Client(id: id, watcher: watcher(id, queue: queue, channel: channel)))
        do {
            try await connection.io.executeThenClose { inbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        // A failed write (the client is gone) ends the queue, so that nothing waits on it.
                        defer { queue.finish() }
                        try await Self.write(queue, to: channel)
                    }
                    defer { queue.finish() }
                    if count > config.maxClients {
                        logger.warning("client \(id) refused: \(config.maxClients) clients already connected (socket.max_clients)")
                        _ = await queue.push(.line(ReplyEncoder.line(ErrorReply(RequestError(.tooManyClients,
                            "\(config.maxClients) clients are connected (socket.max_clients); close one or try again later")))))
                        return
                    }
                    _ = await queue.push(.line(ReplyEncoder.line(VersionReply())))
                    for try await frame in inbound {
                        guard let reply = await respond(to: frame, state: &state) else { continue }
                        // Waits while this client has many replies unread: it slows itself down, not the daemon.
                        guard await queue.push(reply) else { break }
                    }
                }
            }
        } catch {
            logger.debug("client \(id) ended: \(error)")
        }
        router.disconnected(&state.requests)
        if state.refusals > Self.refusalsLogged {
            logger.warning("client \(id) (\(peerText)): \(state.refusals) state changes refused in all")
        }
        logger.debug("client \(id) disconnected")
    }

    /// Writes queued replies in order, each after the previous reached the
    /// kernel: memory stays at the queue, and nothing queued is lost when
    /// the client half-closes.
    private static func write(_ queue: OutboundQueue, to channel: any Channel) async throws {
        func send(_ line: String) async throws {
            var buffer = channel.allocator.buffer(capacity: line.utf8.count + 1)
            buffer.writeString(line)
            buffer.writeInteger(UInt8(ascii: "\n"))
            try await channel.writeAndFlush(buffer).get()
        }
        while let item = await queue.next() {
            switch item {
            case let .line(line):
                try await send(line)
            case let .export(stream):
                try await send(stream.headerLine)
                for seq in 0..<stream.chunkCount { try await send(stream.chunkLine(seq)) }
            }
        }
    }

    /// What becomes of one inbound line before it is run.
    private enum Admission {
        /// A blank line: no reply.
        case ignored
        /// Answered at once: too long, malformed, too fast or not allowed.
        case answered(Outgoing)
        case admitted(Request)
    }

    private func respond(to frame: InboundLine, state: inout ClientState) async -> Outgoing? {
        switch admit(frame, state: &state) {
        case .ignored: return nil
        case let .answered(reply): return reply
        case let .admitted(request): return await router.reply(to: request, from: &state.requests)
        }
    }

    /// Parses one line and checks it against the rate limit and the peer's
    /// right to change state.
    private func admit(_ frame: InboundLine, state: inout ClientState) -> Admission {
        let text: String
        switch frame {
        case .tooLong:
            guard state.limiter.allow(at: MonotonicClock.now()) else { return .answered(rateLimited(id: nil)) }
            return .answered(.line(ReplyEncoder.line(ErrorReply(RequestError(.tooLong,
                "request line longer than \(config.maxLineBytes) bytes (socket.max_line_bytes); it was discarded; "
                + "send one request per line, e.g. ?STATUS;")))))
        case let .line(t):
            text = t
        }
        if RequestParser.isBlank(text.utf8) { return .ignored }
        let parsed = Result { () throws(RequestError) -> Request in try RequestParser.parse(text) }
        // The pieces of an upload in progress are bounded by its announced
        // size, not by the request rate (a 1 MB course is ~350 lines).
        var piece = false
        if state.requests.upload != nil {
            switch (try? parsed.get())?.command {
            case .courseData?, .workoutData?: piece = true
            default: break
            }
        }
        guard piece || state.limiter.allow(at: MonotonicClock.now()) else {
            return .answered(rateLimited(id: (try? parsed.get())?.id))
        }
        let request: Request
        switch parsed {
        case let .success(r): request = r
        case let .failure(error): return .answered(.line(ReplyEncoder.line(ErrorReply(error))))
        }
        if request.command.changesState && !policy.mayChangeState(state.peer) {
            return .answered(forbidden(request, state: &state))
        }
        return .admitted(request)
    }

    /// A state change from a peer that may not make it: refused, and logged the first few times.
    private func forbidden(_ request: Request, state: inout ClientState) -> Outgoing {
        state.refusals += 1
        if state.refusals <= Self.refusalsLogged {
            let who = state.peer.map(\.description) ?? "an unknown peer"
            logger.warning("refused ?\(request.command.name); from \(who): not root, the daemon's user or in group \(config.controlGroup)")
        }
        let group = config.controlGroup.isEmpty ? "" : " or membership of group \(config.controlGroup)"
        return .line(ReplyEncoder.line(ErrorReply(RequestError(.forbidden,
            "?\(request.command.name); changes state and needs root, the daemon's user\(group); "
            + "read-only requests such as ?STATUS; work", id: request.id))))
    }

    /// Where a client's `?WATCH` lines go: straight to its channel, without
    /// waiting (`WatcherLines`); a watcher that does not read them is dropped
    /// rather than slowing the daemon.
    private func watcher(_ id: UInt64, queue: OutboundQueue, channel: any Channel) -> Watchers.Sink {
        let logger = logger
        let lines = WatcherLines(channel: channel, limit: Self.watcherBacklogBytes)
        return { line in
            if !lines.isDropped, !lines.send(line) {
                logger.warning("watcher \(id) does not read its updates; closing it")
                queue.finish()
            }
        }
    }

    private func rateLimited(id: JSONValue?) -> Outgoing {
        .line(ReplyEncoder.line(ErrorReply(RequestError(.rateLimited,
            "more than \(config.maxRequestsPerSecond) requests per second (socket.max_requests_per_s); "
            + "the request was not run; slow down and send it again", id: id))))
    }

    private static func seconds(_ s: Double) -> String {
        s.rounded() == s ? "\(Int(s)) s" : "\(s) s"
    }
}
