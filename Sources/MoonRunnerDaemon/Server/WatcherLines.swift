import NIOCore
import Synchronization

/// Writes a watcher's lines straight to its channel: each `STATUS` and
/// `EVENT` costs the event loop one wake (one task), where a writer task awaiting each
/// write cost the cooperative pool two more (on a Pi every wake is battery).
/// Lines not yet in the kernel are counted; a watcher that lets them pass
/// `limit` bytes is not reading, and is closed (once) rather than let the
/// daemon's memory grow.
final class WatcherLines: Sendable {
    private let channel: any Channel
    private let limit: Int
    private let unsent = Atomic<Int>(0)
    private let dropped = Atomic<Bool>(false)

    init(channel: any Channel, limit: Int) {
        self.channel = channel
        self.limit = limit
    }

    /// Sends `line`; false when the watcher is (now) dropped for not reading.
    func send(_ line: String) -> Bool {
        guard !dropped.load(ordering: .relaxed) else { return false }
        let size = line.utf8.count + 1
        guard unsent.add(size, ordering: .relaxed).newValue <= limit else {
            unsent.subtract(size, ordering: .relaxed)
            dropped.store(true, ordering: .relaxed)
            channel.close(promise: nil)
            return false
        }
        var buffer = channel.allocator.buffer(capacity: size)
        buffer.writeString(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        // One task on the event loop: a future's callback added from off the loop is a
        // task of its own, so the write and its accounting apart woke the loop twice.
        let channel = self.channel
        let line = buffer
        channel.eventLoop.execute {
            channel.writeAndFlush(line).whenComplete { _ in self.unsent.subtract(size, ordering: .relaxed) }
        }
        return true
    }

    /// Whether the watcher was dropped for not reading (told once).
    var isDropped: Bool { dropped.load(ordering: .relaxed) }
}
