import NIOCore

/// Closes a connection that neither sent nor received anything for the idle
/// limit, telling the client why first (a person at `socat` sees it).
final class IdleCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    typealias OutboundOut = ByteBuffer
    let farewell: String

    init(farewell: String) {
        self.farewell = farewell
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: farewell.utf8.count + 1)
        buffer.writeString(farewell)
        buffer.writeInteger(UInt8(ascii: "\n"))
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
        // A peer that does not read would keep the write pending: close regardless, soon.
        context.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
    }
}
