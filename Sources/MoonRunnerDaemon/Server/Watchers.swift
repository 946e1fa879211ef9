import MoonRunnerProtocol
import Synchronization

/// The clients that asked for `?WATCH`: each `STATUS` and `EVENT` the session
/// service sends is encoded once here and offered to every one of them, in
/// the order it was sent. A sink must not wait (the control server queues
/// the line, or drops a client that does not read).
final class Watchers: Sendable {
    typealias Sink = @Sendable (String) -> Void
    private let sinks = Mutex<[UInt64: Sink]>([:])
    /// Rung when a watcher joins (the heartbeat waits on it).
    private let bell: Doorbell

    init(bell: Doorbell = Doorbell()) {
        self.bell = bell
    }

    func add(_ client: UInt64, sink: @escaping Sink) {
        sinks.withLock { $0[client] = sink }
        bell.ring()
    }

    /// Anyone is watching.
    var isEmpty: Bool { sinks.withLock { $0.isEmpty } }

    func remove(_ client: UInt64) {
        _ = sinks.withLock { $0.removeValue(forKey: client) }
    }

    /// Encodes `reply` once and hands the line to every watcher (outside the
    /// lock, so that a sink may add or remove one).
    func send(_ reply: some Encodable) {
        let receivers = sinks.withLock { Array($0.values) }
        guard !receivers.isEmpty else { return }
        let line = ReplyEncoder.line(reply)
        for sink in receivers { sink(line) }
    }
}
