import NIOCore

/// One framed input of the control socket.
public enum InboundLine: Sendable, Equatable {
    case line(String)
    /// A line longer than the limit; it was discarded up to its newline.
    case tooLong
}

/// Splits the byte stream into newline-terminated lines, refusing lines over
/// `maxLength` bytes without ever buffering more than that. A trailing
/// half-line at end of stream is dropped: only complete lines are requests.
/// The daemon's server frames requests with it and the web app's client
/// frames replies with it (one framer for both ends of the socket).
public struct LineFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = InboundLine
    public let maxLength: Int
    private var discarding = false

    public init(maxLength: Int) {
        self.maxLength = maxLength
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
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

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
