/// Errors the store reports; each says what to do about it.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case cannotOpen(path: String, reason: String)
    case damaged(path: String, keptAs: String, reason: String)
    case badSnapshot(session: Int64)
    case readOnly(path: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "cannot open the store \(path): \(reason)"
        case let .damaged(path, keptAs, reason):
            "the store \(path) was damaged (\(reason)); it was kept as \(keptAs) and a new one was started"
        case let .badSnapshot(id): "session \(id) has an unreadable snapshot"
        case let .readOnly(path): "the store \(path) is being written by another process (moonrunnerd holds its journal)"
        }
    }
}
