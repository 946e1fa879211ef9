/// The calls `BlueZLink` has asked of bluetoothd and not yet had answered,
/// each with the attempt it belongs to, so that an answer from an attempt
/// that is over is recognised and ignored. Tokens only grow: an answer can
/// never be taken for one to a later call.
///
/// Calls wait in `queued` until the shell takes them with `BlueZLink.next`,
/// whether decided there or while handling an event (a `Disconnect` after a
/// failed `StartNotify`).
struct BlueZCalls {
    struct Pending {
        var kind: BlueZLink.Call.Kind
        var path: String
        var attempt: Int
    }

    private var pending: [Int: Pending] = [:]
    private var nextToken = 1
    private var queued: [BlueZLink.Call] = []

    /// Calls asked and not answered (answers into the void included).
    var count: Int { pending.count }

    /// Asks `kind` on `path` within `attempt`: pending from now, sent with the next `take()`.
    mutating func ask(_ kind: BlueZLink.Call.Kind, _ path: String, attempt: Int) {
        pending[nextToken] = Pending(kind: kind, path: path, attempt: attempt)
        queued.append(BlueZLink.Call(token: nextToken, kind: kind, path: path))
        nextToken += 1
    }

    /// The calls asked since the last `take()`, in the order asked.
    mutating func take() -> [BlueZLink.Call] {
        defer { queued = [] }
        return queued
    }

    /// The call `token` answers, no longer pending; nil if it is not one.
    mutating func answer(_ token: Int) -> Pending? {
        pending.removeValue(forKey: token)
    }

    /// Whether a call of `kind` is pending, on `path` and in `attempt` when given.
    func asking(_ kind: BlueZLink.Call.Kind, on path: String? = nil, in attempt: Int? = nil) -> Bool {
        pending.values.contains { p in
            p.kind == kind && (path == nil || p.path == path) && (attempt == nil || p.attempt == attempt)
        }
    }

    /// Nothing pending will be answered (the bus or bluetoothd went): forget it; tokens keep growing.
    mutating func abandon() {
        pending = [:]
    }

    /// Notifications arrived before the `StartNotify` reply on `path`: it succeeded, so it is no longer awaited.
    mutating func settleNotify(on path: String) {
        pending = pending.filter { !($0.value.kind == .startNotify && $0.value.path == path) }
    }
}
