import FoundationEssentials
import MoonRunnerCore
import MoonRunnerTestSupport
import Testing
@testable import MoonRunnerTerrain

/// GeoTIFF tiles through libtiff: georeferenced by their tags, read by the block, refused with a
/// reason when they cannot be placed or read.
@Suite("GeoTIFF tiles")
struct GeoTIFFTileTests {
    /// Copernicus-like: 3600 × 3600 at 1″ over N41E002, posting (r, c) at 200 + r/10 + c/100 metres.
    static func slope(_ r: Int, _ c: Int) -> Float { 200 + Float(r) / 10 + Float(c) / 100 }

    @Test("a tiled DEFLATE float32 tile pixel-is-point reads the posting's value at its centre and between",
          arguments: [true, false])
    func tiled(deflate: Bool) {
        let folder = TileFolder([
            ("Copernicus_DSM_COG_10_N41_00_E002_00_DEM.tif",
                TileWriter.geoTIFF(width: 3600, height: 3600, block: 1024, deflate: deflate,
                                   georeference: copernicus(rows: 3600, columns: 3600), Self.slope)),
        ])
        let dem = folder.read()
        #expect(dem.tiles.first?.used == true, "\(dem.tiles)")
        #expect(dem.tiles.first?.rows == 3600)
        // Posting (1500, 2000) lies at 42 − 1500/3600 N, 2 + 2000/3600 E.
        let at = dem.elevation(latitude: 42 - 1500.0 / 3600, longitude: 2 + 2000.0 / 3600).metres
        #expect(abs(at - (200 + 150 + 20)) < 1e-3)
        let between = dem.elevation(latitude: 42 - 1500.5 / 3600, longitude: 2 + 2000.5 / 3600).metres
        #expect(abs(between - (200 + 150.05 + 20.005)) < 1e-3)
    }

    @Test("strips read like tiles")
    func strips() {
        let folder = TileFolder([
            ("dem.tif", TileWriter.geoTIFF(width: 1200, height: 1200, tiled: false, block: 2,
                                              georeference: copernicus(rows: 1200, columns: 1200)) { r, c in Float(r + c) }),
        ])
        let dem = folder.read()
        #expect(dem.tiles.first?.cell == "N41E002")
        #expect(abs(dem.elevation(latitude: 42 - 600.0 / 1200, longitude: 2 + 300.0 / 1200).metres - 900) < 1e-3)
    }

    @Test("a GeoTIFF without georeferencing is named with the tag it lacks and skipped")
    func noGeoreference() {
        let folder = TileFolder([
            ("Copernicus_DSM_COG_10_N41_00_E002_00_DEM.tif",
                TileWriter.geoTIFF(width: 64, height: 64, georeference: nil) { _, _ in 1 }),
        ])
        let dem = folder.read()
        #expect(dem.tiles.first?.problem == "no georeferencing: ModelPixelScaleTag (33550) is missing")
        #expect(dem.elevation(latitude: 41.5, longitude: 2.5) == .noTile(TileCell(south: 41, west: 2)))
    }

    @Test("a projected GeoTIFF (not latitude and longitude) is refused with what it is")
    func projected() {
        var g = copernicus(rows: 64, columns: 64)
        g.keys[7] = 1  // GTModelTypeGeoKey: projected
        let folder = TileFolder([
            ("dem.tif", TileWriter.geoTIFF(width: 64, height: 64, georeference: g) { _, _ in 1 }),
        ])
        let dem = folder.read()
        #expect(dem.tiles.first?.problem?.contains("model type 1 is not geographic") == true)
    }

    @Test("NaN postings and a file that is not a TIFF: voids, and a named refusal")
    func badValues() {
        let folder = TileFolder([
            ("Copernicus_DSM_COG_10_N41_00_E002_00_DEM.tif",
                TileWriter.geoTIFF(width: 64, height: 64, georeference: copernicus(rows: 64, columns: 64)) { r, _ in r < 32 ? .nan : 5 }),
            ("Copernicus_DSM_COG_10_N42_00_E002_00_DEM.tif", Array("II*\0 not really".utf8)),
        ])
        let dem = folder.read()
        #expect(dem.elevation(latitude: 41.9, longitude: 2.5) == .void(TileCell(south: 41, west: 2)))
        #expect(dem.elevation(latitude: 41.2, longitude: 2.5).metres == 5)
        #expect(dem.tiles.first { $0.cell == "N42E002" }?.problem?.contains("is not a TIFF libtiff can read") == true)
    }

    @Test("a tile cut short after its header reads voids where its blocks are missing, and the session goes on")
    func truncated() {
        let whole = TileWriter.geoTIFF(width: 256, height: 256, block: 128, georeference: copernicus(rows: 256, columns: 256)) { _, _ in 9 }
        // Keep the header and the directory (at the end) but zero the first block's bytes.
        var broken = whole
        for i in 8..<200 { broken[i] = 0 }
        let folder = TileFolder([
            ("dem.tif", broken),
        ])
        let dem = folder.read()
        #expect(dem.elevation(latitude: 41.99, longitude: 2.01) == .void(TileCell(south: 41, west: 2)))
        #expect(dem.elevation(latitude: 41.01, longitude: 2.99).metres == 9)
    }

    @Test("between two Copernicus tiles (which share no edge) the corners come from the neighbour")
    func acrossTheEdge() {
        // Two 64 × 64 tiles side by side: 10 m in the western, 20 m in the eastern.
        var east = copernicus(rows: 64, columns: 64)
        east.tiepoint[3] = 3
        let folder = TileFolder([
            ("west.tif", TileWriter.geoTIFF(width: 64, height: 64, georeference: copernicus(rows: 64, columns: 64)) { _, _ in 10 }),
            ("east.tif", TileWriter.geoTIFF(width: 64, height: 64, georeference: east) { _, _ in 20 }),
        ])
        let dem = folder.read()
        // Halfway between the western tile's last column (2 + 63/64) and the eastern's first (3).
        let h = dem.elevation(latitude: 41.5, longitude: 2 + 63.5 / 64).metres
        #expect(abs(h - 15) < 1e-9)
    }
}
