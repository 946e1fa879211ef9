/// Why a terrain tile cannot be used: the file it is and what is wrong with
/// it, in words a runner can act on. A bad tile is skipped and said (in
/// `moonrunner dem`, the daemon's log and the session's events), never
/// fatal.
public struct TerrainFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The tile's file name (without its folder).
    public var file: String
    public var reason: String

    public init(file: String, _ reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): \(reason)" }
}
