import NIOCore
import Synchronization

/// The lines waiting for one client's writer: replies to the client's own
/// requests, which wait for room (a client that pipelines faster than it
/// reads is slowed down: the daemon stops reading its requests), so memory
/// per client is bounded. Watcher lines do not pass here (`WatcherLines`).
final class OutboundQueue: Sendable {
    enum Offer { case queued, full, finished }

    private struct State {
        var items = CircularBuffer<Outgoing>(initialCapacity: 16)
        var writer: CheckedContinuation<Outgoing?, Never>?
        var producers: [CheckedContinuation<Bool, Never>] = []
        var finished = false
    }

    private let state = Mutex(State())
    /// Replies wait while this many lines are queued.
    let replyLimit: Int

    init(replyLimit: Int) {
        self.replyLimit = replyLimit
    }

    /// Queues a reply, waiting while the queue is full. False once finished.
    func push(_ item: Outgoing) async -> Bool {
        await withTaskCancellationHandler {
            while true {
                enum Step { case handed(CheckedContinuation<Outgoing?, Never>?), finished, wait }
                let step: Step = state.withLock { s in
                    if s.finished { return .finished }
                    if let w = s.writer {
                        s.writer = nil
                        return .handed(w)
                    }
                    guard s.items.count < replyLimit else { return .wait }
                    s.items.append(item)
                    return .handed(nil)
                }
                switch step {
                case let .handed(writer):
                    writer?.resume(returning: item)
                    return true
                case .finished:
                    return false
                case .wait:
                    let goOn = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                        let now: Bool? = state.withLock { s in
                            if s.finished { return false }
                            if s.items.count < replyLimit { return true }
                            s.producers.append(c)
                            return nil
                        }
                        if let now { c.resume(returning: now) }
                    }
                    if !goOn { return false }
                }
            }
        } onCancel: {
            finish()
        }
    }

    /// The next line for the writer; nil when finished and drained.
    func next() async -> Outgoing? {
        await withTaskCancellationHandler {
            let (item, producer, done): (Outgoing?, CheckedContinuation<Bool, Never>?, Bool) = state.withLock { s in
                guard let item = s.items.popFirst() else { return (nil, nil, s.finished) }
                let p = s.items.count < replyLimit && !s.producers.isEmpty ? s.producers.removeFirst() : nil
                return (item, p, false)
            }
            producer?.resume(returning: true)
            if let item { return item }
            if done { return nil }
            return await withCheckedContinuation { (c: CheckedContinuation<Outgoing?, Never>) in
                let now: Outgoing?? = state.withLock { s in
                    if let item = s.items.popFirst() { return .some(item) }
                    if s.finished { return .some(nil) }
                    s.writer = c
                    return nil
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            finish()
        }
    }

    /// No more lines: the writer drains what is queued, waiting producers give up.
    func finish() {
        let (writer, producers): (CheckedContinuation<Outgoing?, Never>?, [CheckedContinuation<Bool, Never>]) = state.withLock { s in
            s.finished = true
            let w = s.items.isEmpty ? s.writer : nil
            if w != nil { s.writer = nil }
            let p = s.producers
            s.producers = []
            return (w, p)
        }
        writer?.resume(returning: nil)
        for p in producers { p.resume(returning: false) }
    }
}
