import Foundation
import MoonRunnerProtocol
import MoonRunnerSocket
import NIOCore
import NIOPosix

/// The live link to the daemon's control socket: async on the web app's
/// event loops (a handler never blocks a thread while the daemon answers),
/// lines framed by the daemon's own `LineFrameDecoder`, the greeting's
/// protocol version checked as the CLI checks it. This file only turns
/// NIO's channel into conversations; what to ask is the callers' business.
public struct SocketDaemonLink: DaemonLink {
    public let path: String
    let group: any EventLoopGroup
    /// Longest reply line accepted: an EXPORT_DATA line carries 48 KiB of the
    /// file (64 KiB as base64) plus JSON escapes; a SESSION with many events
    /// can be longer. Far below what could hurt, far above what is sent.
    static let maxLineBytes = 4 << 20

    public init(path: String, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.path = path
        self.group = group
    }

    public func converse(_ lines: [String], silence: Duration,
                         receive: (String) async throws -> Bool) async throws {
        let channel = try await connect(silence: silence)
        try await channel.executeThenClose { inbound, outbound in
            var replies = inbound.makeAsyncIterator()
            guard let greeting = try await replies.next() else { throw DaemonLinkError.closed }
            try Self.check(greeting: greeting, path: path)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for line in lines {
                        var buffer = ByteBuffer()
                        buffer.reserveCapacity(line.utf8.count + 1)
                        buffer.writeString(line)
                        buffer.writeInteger(UInt8(ascii: "\n"))
                        try await outbound.write(buffer)
                    }
                }
                while true {
                    guard let next = try await replies.next() else { throw DaemonLinkError.closed }
                    guard case let .line(text) = next else {
                        throw DaemonLinkError.garbled("a line longer than \(Self.maxLineBytes) bytes")
                    }
                    if try await !receive(text) { break }
                }
                group.cancelAll()
            }
        }
    }

    private func connect(silence: Duration) async throws -> NIOAsyncChannel<InboundLine, ByteBuffer> {
        let (seconds, attoseconds) = silence.components
        let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        do {
            return try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(5))
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(IdleStateHandler(readTimeout: timeout))
                        try sync.addHandler(SilenceDetector())
                        try sync.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLength: Self.maxLineBytes)))
                        return try NIOAsyncChannel<InboundLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError {
            let reason = String(cString: strerror(error.errnoCode))
            if error.errnoCode == EACCES {
                throw DaemonLinkError.unavailable("cannot reach moonrunnerd at \(path) (\(reason)): the web app's user "
                    + "must be in the daemon's group (socket.control_group)")
            }
            throw DaemonLinkError.unavailable("moonrunnerd is not running or not reachable at \(path) (\(reason))")
        } catch {
            throw DaemonLinkError.unavailable("moonrunnerd is not reachable at \(path) (\(error))")
        }
    }

    /// The daemon greets with VERSION, or with an ERROR (too many clients) before closing.
    static func check(greeting: InboundLine, path: String) throws {
        guard case let .line(line) = greeting else { throw DaemonLinkError.garbled("an overlong greeting") }
        switch ReplyEncoder.replyClass(of: line) {
        case "VERSION":
            guard let v = try? ReplyEncoder.decode(VersionReply.self, from: line) else {
                throw DaemonLinkError.garbled(String(line.prefix(120)))
            }
            guard v.protoMajor == ProtocolVersion.major else {
                throw DaemonLinkError.incompatible("moonrunnerd speaks protocol \(v.protoMajor).\(v.protoMinor), this web app "
                    + "\(ProtocolVersion.major).\(ProtocolVersion.minor); install matching versions")
            }
        case "ERROR":
            let message = (try? ReplyEncoder.decode(ErrorReply.self, from: line))?.message ?? line
            throw DaemonLinkError.unavailable("moonrunnerd refused the connection: \(message)")
        default:
            throw DaemonLinkError.garbled("unexpected greeting \(line.prefix(80))")
        }
    }
}

/// Turns "nothing read for the silence allowed" into an error on the
/// channel (which ends the conversation) and closes it.
final class SilenceDetector: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        context.fireErrorCaught(DaemonLinkError.silent)
        context.close(promise: nil)
    }
}
