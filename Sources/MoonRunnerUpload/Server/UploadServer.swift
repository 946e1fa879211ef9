import Foundation
import Logging
import MoonRunnerProtocol
import MoonRunnerSocket
import MoonRunnerWeb
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The upload service's socket: `moonrunner upload …` and the web app ask
/// here (`UploadRequest`). A Unix socket (mode 0660, in a directory of its
/// own) whose peers are checked by `SO_PEERCRED` with the daemon's own
/// `PeerPolicy`: what changes anything is for root, this service's user and
/// members of `upload.admin_group` (the web app's user is one); what only
/// reads (`?UPLOADS`, `?TARGETS`, `?WATCH`: the announcer) is for any peer
/// that may open the socket. Shaped as the web app's admin socket.
public struct UploadServer: Service {
    let settings: UploadSettings
    let desk: UploadDesk
    let logger: Logger

    public init(settings: UploadSettings, desk: UploadDesk, logger: Logger) {
        self.settings = settings
        self.desk = desk
        self.logger = logger
    }

    struct Connection: Sendable {
        var io: NIOAsyncChannel<InboundLine, ByteBuffer>
        var peer: PeerCredentials?
    }

    public func run() async throws {
        let path = settings.adminSocket
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        let policy = PeerPolicy(controlGroup: settings.adminGroup)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                PeerCredentials.of(channel).flatMapThrowing { peer in
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLength: 8192)))
                    return Connection(io: try NIOAsyncChannel(wrappingChannelSynchronously: channel), peer: peer)
                }
            }
        chmod(path, 0o660)
        logger.info("upload socket: \(path)")
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
                let (reply, watch) = await answer(text, peer: connection.peer, policy: policy)
                try await outbound.write(ByteBuffer(string: reply + "\n"))
                if watch { try await notices(to: outbound) }
            }
        }
    }

    /// The reply line to one request line, and whether the peer asked to watch.
    func answer(_ text: String, peer: PeerCredentials?, policy: PeerPolicy) async -> (String, Bool) {
        let request: UploadRequest
        do {
            request = try UploadRequest.parse(text)
        } catch {
            return (ReplyEncoder.line(ErrorReply(error)), false)
        }
        guard !request.changesState || policy.mayChangeState(peer) else {
            let e = RequestError(.forbidden, "only root, moonrunner-upload's user and members of "
                + "\(settings.adminGroup.isEmpty ? "no group" : settings.adminGroup) (upload.admin_group) may ask the upload service")
            return (ReplyEncoder.line(ErrorReply(e)), false)
        }
        return (await desk.answer(request), request == .watch)
    }

    /// Each job that reaches its end, as an `UPLOADED` line, until the peer leaves.
    private func notices(to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws {
        for await n in await desk.queue.notices() {
            let line = ReplyEncoder.line(UploadedReply(target: n.target.rawValue, session: n.session, activity: n.activity,
                                                       state: n.state.rawValue, url: n.url, time: n.time))
            try await outbound.write(ByteBuffer(string: line + "\n"))
        }
    }
}
