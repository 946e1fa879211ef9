import MoonRunnerCore
import Synchronization

/// The daemon's terrain model: the DEM folder as it was when last read.
/// `reload()` reads it again (the daemon does at the start of each session,
/// so that tiles dropped in between are used without a restart); lookups
/// take one uncontended lock to see which reading is current.
public final class TerrainFolder: TerrainModel {
    public let path: String
    private let cacheDirectory: String?
    private let current: Mutex<DEMDirectory>

    public init(path: String, cacheDirectory: String?) {
        self.path = path
        self.cacheDirectory = cacheDirectory
        current = Mutex(DEMDirectory(path: path, cacheDirectory: cacheDirectory))
    }

    /// The folder as read now.
    public var directory: DEMDirectory { current.withLock { $0 } }

    /// Reads the folder again; what it found.
    @discardableResult
    public func reload() -> DEMDirectory {
        let fresh = DEMDirectory(path: path, cacheDirectory: cacheDirectory)
        current.withLock { $0 = fresh }
        return fresh
    }

    public var hasTiles: Bool { current.withLock { $0.hasTiles } }

    public func elevation(latitude: Double, longitude: Double) -> TerrainReading {
        let dem = current.withLock { $0 }
        return dem.elevation(latitude: latitude, longitude: longitude)
    }
}
