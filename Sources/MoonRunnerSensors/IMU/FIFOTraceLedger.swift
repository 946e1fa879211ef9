/// How many of the bytes read from an emulated FIFO were pushed before a
/// replayed recording's first sample, during the recording, and after its last.
public struct FIFOBytesRead: Sendable, Equatable {
    public var beforeTrace = 0
    public var ofTrace = 0
    public var afterTrace = 0

    public var total: Int { beforeTrace + ofTrace + afterTrace }
}

/// Tells the recording's bytes from the ones the device took while it held the
/// recording's first sample (a trace on the receiver's clock, not due yet) or its
/// last (the recording over): the reader must keep exactly the recording, and the
/// driver's stamps cannot say which is which (at 20× a stamp can be off by more
/// than half a period). Positions count bytes in the order they were pushed.
struct FIFOTraceLedger {
    private var pushedBytes = 0
    private var droppedBytes = 0
    /// Positions of the recording's bytes (they are pushed one after another).
    private var recording: Range<Int>?
    private(set) var read = FIFOBytesRead()

    mutating func pushed(recorded: Bool) {
        if recorded { recording = (recording?.lowerBound ?? pushedBytes)..<(pushedBytes + 1) }
        pushedBytes += 1
    }

    /// Bytes that left the FIFO unread: the oldest on an overflow, all on a reset.
    mutating func dropped(_ count: Int) {
        droppedBytes += count
    }

    /// The byte at the FIFO's head was read.
    mutating func popped() {
        let position = read.total + droppedBytes
        guard let recording, position >= recording.lowerBound else {
            read.beforeTrace += 1
            return
        }
        if position < recording.upperBound {
            read.ofTrace += 1
        } else {
            read.afterTrace += 1
        }
    }
}
