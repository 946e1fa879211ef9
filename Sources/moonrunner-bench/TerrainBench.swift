import Foundation
import MoonRunnerCore
import MoonRunnerSystem
import MoonRunnerTerrain
import MoonRunnerTestSupport

struct TerrainBenchResult {
    var format: String
    var fixes: Int
    /// Microseconds per fix: mean, 99th percentile, worst (a GeoTIFF window decoded).
    var mean: Double
    var p99: Double
    var worst: Double
}

/// (f) Reading the terrain under a track: a 1″ `.hgt` (3601² postings, 26 MB) and a Copernicus-like
/// GLO-30 GeoTIFF (3600², float32, DEFLATE, 1024² blocks) written to a temporary folder, then
/// `hours` of 1 Hz fixes of a runner at 3 m/s crossing the tile looked up through `DEMDirectory`
/// as the engine does (wall time per lookup, the file in the page cache as on a Pi that reads it
/// every second). The tiles' cache folder starts empty, as on a Pi that meets the tile for the
/// first time.
func benchTerrain(hours: Double) -> [TerrainBenchResult] {
    let w = TileWriter()
    defer { w.remove() }
    let ground: (Int, Int) -> Double = { r, c in 300 + 40 * sin(Double(r) / 300) + 25 * cos(Double(c) / 450) }
    let hgt = TileWriter()
    defer { hgt.remove() }
    hgt.write("N41E002.hgt", TileWriter.hgt(side: 3601) { r, c in Int(ground(r, c).rounded()) })
    w.write("Copernicus_DSM_COG_10_N41_00_E002_00_DEM.tif",
            TileWriter.geoTIFF(width: 3600, height: 3600, block: 1024, georeference: copernicus(rows: 3600, columns: 3600)) {
                Float(ground($0, $1))
            })
    let cache = TileWriter()
    defer { cache.remove() }
    var results: [TerrainBenchResult] = []
    // The GeoTIFF twice with the daemon's cache folder: the first run decodes each block it
    // crosses (kept on disk), the next finds them decoded.
    let runs = [("SRTM 1\" .hgt", hgt.dir), ("GLO-30 GeoTIFF, first run", w.dir), ("GLO-30 GeoTIFF, next runs", w.dir)]
    for (format, dir) in runs {
        let dem = DEMDirectory(path: dir, cacheDirectory: cache.dir)
        results.append(lookups(dem, format: format, fixes: Int(hours * 3600)))
    }
    return results
}

/// Wall time of each lookup along the track: north-east across the tile at 3 m/s, a wiggle of GPS
/// noise on each fix. Fixes come every 250 µs instead of every second (time 4000 times faster
/// than a runner's, so that ten hours take nine seconds); a block decoded ahead (some 50 ms) is
/// still ready some 200 fixes (600 m) after the runner comes within a window (3.8 km) of it.
private func lookups(_ dem: DEMDirectory, format: String, fixes: Int) -> TerrainBenchResult {
    var times: [Double] = []
    times.reserveCapacity(fixes)
    var sink = 0.0
    for i in 0..<fixes {
        let metres = 3.0 * Double(i)
        let lat = 41.05 + metres * 0.7 / 111_000 + 2e-5 * sin(Double(i))
        let lon = 2.05 + metres * 0.7 / 84_000 + 2e-5 * cos(Double(i))
        let t0 = MonotonicClock.now()
        sink += dem.elevation(latitude: lat, longitude: lon).metres
        times.append((MonotonicClock.now() - t0) * 1e6)
        usleep(250)
    }
    let sorted = times.sorted()
    let mean = times.reduce(0, +) / Double(max(times.count, 1))
    return TerrainBenchResult(format: format + (sink.isFinite ? "" : " (voids)"), fixes: fixes, mean: mean,
                              p99: sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))], worst: sorted.last ?? 0)
}
