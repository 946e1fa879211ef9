import MoonRunnerTerrain
import MoonRunnerTestSupport

/// A folder of tiles for one test, read as the daemon reads it, gone when the test lets go of it.
final class TileFolder {
    let writer = TileWriter()

    init(_ files: [(name: String, bytes: [UInt8])]) {
        for f in files { writer.write(f.name, f.bytes) }
    }

    deinit { writer.remove() }

    var path: String { writer.dir }

    func read(cache: String? = nil) -> DEMDirectory {
        DEMDirectory(path: writer.dir, cacheDirectory: cache)
    }
}
