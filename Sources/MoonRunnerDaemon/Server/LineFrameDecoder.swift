import NIOCore

/// One framed input of the control socket.
enum InboundLine: Sendable, Equatable {
    case line(String)
    /// A line longer than the limit; it was discarded up to its newline.
    case tooLong
}

/// Splits the byte stream into newline-terminated lines, refusing lines over
/// `maxLength` bytes without ever buffering more than that. A trailing
/// half-line at end of stream is dropped: only complete lines are requests.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = InboundLine
    let maxLength: Int
    private var discarding = false

    init(maxLength: Int) {
        self.maxLength = maxLength
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        if let nl = view.firstIndex(of: UInt8(ascii: "\n")) {
            let length = nl - view.startIndex
            if discarding {
                discarding = false
                buffer.moveReaderIndex(forwardBy: length + 1)
                return .continue
            }
            if length > maxLength {
                buffer.moveReaderIndex(forwardBy: length + 1)
                context.fireChannelRead(wrapInboundOut(.tooLong))
                return .continue
            }
            let text = buffer.readString(length: length) ?? ""
            buffer.moveReaderIndex(forwardBy: 1)
            context.fireChannelRead(wrapInboundOut(.line(text)))
            return .continue
        }
        if buffer.readableBytes > maxLength {
            if !discarding {
                discarding = true
                context.fireChannelRead(wrapInboundOut(.tooLong))
            }
            buffer.moveReaderIndex(to: buffer.writerIndex)
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}

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
