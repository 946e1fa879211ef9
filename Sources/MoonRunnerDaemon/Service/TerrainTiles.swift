import Logging
import MoonRunnerCore
import MoonRunnerTerrain

/// The daemon's side of the terrain model: the folder of `elevation.dem_dir`
/// opened at start and read again at each session's start, and every tile it
/// cannot use said in the log with why (never fatal: GPS fills in).
enum TerrainTiles {
    /// The folder's tiles, nil when the key is empty. Deflated `.hgt.zip` tiles are unpacked once
    /// into `state_dir/dem-cache`.
    static func open(_ config: DaemonConfig, logger: Logger) -> TerrainFolder? {
        guard !config.demDir.isEmpty else { return nil }
        let folder = TerrainFolder(path: config.demDir, cacheDirectory: config.stateDir + "/dem-cache")
        report(folder.directory, logger: logger)
        return folder
    }

    /// Reads the folder again (tiles dropped in since are used from now on).
    static func reload(_ folder: TerrainFolder?, logger: Logger) {
        guard let folder else { return }
        report(folder.reload(), logger: logger)
    }

    private static func report(_ dem: DEMDirectory, logger: Logger) {
        let cells = dem.cells.map(\.description).joined(separator: " ")
        logger.info("terrain: \(dem.cells.count) cell(s) covered in \(dem.path)\(cells.isEmpty ? "" : ": " + cells)")
        for t in dem.tiles where !t.used {
            logger.warning("terrain: \(t.file) not used: \(t.problem ?? "")")
        }
    }
}
