import FoundationEssentials
import MoonRunnerCore
import MoonRunnerTestSupport
import Testing
@testable import MoonRunnerTerrain

/// The terrain model a runner drops on the Pi: tiles found, read where a fix needs them, bad
/// ones named and skipped.
@Suite("DEM folder")
struct DEMDirectoryTests {
    /// A 3″ tile over N41E002 whose posting (r, c) is 100 + r + 2c metres: bilinear reproduces a plane exactly.
    static func plane(_ r: Int, _ c: Int) -> Int? { 100 + r + 2 * c }

    @Test("an .hgt is read where the point lies: a plane of postings gives the plane's value between them")
    func hgtPlane() throws {
        let folder = TileFolder([
            ("N41E002.hgt", TileWriter.hgt(side: 1201, Self.plane)),
        ])
        let dem = folder.read()
        #expect(dem.tiles.map(\.file) == ["N41E002.hgt"])
        #expect(dem.tiles.first?.arcSeconds == 3)
        // 10.5 rows south of 42 N and 20.25 columns east of 2 E: 100 + 10.5 + 40.5 = 151 m.
        let lat = 42 - 10.5 / 1200, lon = 2 + 20.25 / 1200
        #expect(abs(dem.elevation(latitude: lat, longitude: lon).metres - 151) < 1e-9)
        // The tile's corners are its postings (the edges are shared with the neighbours).
        #expect(dem.elevation(latitude: 41, longitude: 3).metres == Double(100 + 1200 + 2400))
        #expect(dem.elevation(latitude: 40.5, longitude: 2.5) == .noTile(TileCell(south: 40, west: 2)))
    }

    @Test("a void (−32768) takes the other corners while they carry half the weight, and is a void nearer it")
    func voids() {
        let folder = TileFolder([
            ("N41E002.hgt", TileWriter.hgt(side: 1201) { r, c in r == 10 && c == 10 ? nil : 50 }),
        ])
        let dem = folder.read()
        // A quarter of the way from the void to its east neighbour: the void carries 0.75 × (row weight).
        let near = dem.elevation(latitude: 42 - 10.0 / 1200, longitude: 2 + 10.25 / 1200)
        let far = dem.elevation(latitude: 42 - 10.0 / 1200, longitude: 2 + 10.75 / 1200)
        #expect(near == .void(TileCell(south: 41, west: 2)))
        #expect(far.metres == 50)
    }

    @Test("a tile of the wrong size for an .hgt is named with its size, skipped, and the others are used",
          arguments: [1_000, 1201 * 1201 * 2 - 2, 3601 * 3601 * 2 + 2])
    func wrongSize(bytes: Int) {
        let folder = TileFolder([
            ("N41E002.hgt", [UInt8](repeating: 0, count: bytes)),
            ("N42E002.hgt", TileWriter.hgt(side: 1201) { _, _ in 7 }),
        ])
        let dem = folder.read()
        let bad = dem.tiles.first { $0.file == "N41E002.hgt" }
        #expect(bad?.used == false)
        #expect(bad?.problem?.contains("is \(bytes) bytes") == true)
        #expect(dem.elevation(latitude: 41.5, longitude: 2.5) == .noTile(TileCell(south: 41, west: 2)))
        #expect(dem.elevation(latitude: 42.5, longitude: 2.5).metres == 7)
    }

    @Test("an .hgt whose name says no tile is named and skipped")
    func badName() {
        let folder = TileFolder([
            ("terrain.hgt", TileWriter.hgt(side: 1201) { _, _ in 7 }),
        ])
        let dem = folder.read()
        #expect(dem.tiles.first?.problem?.contains("names no tile") == true)
        #expect(dem.cells.isEmpty)
    }

    @Test("a zipped .hgt reads the same, stored in place or deflated into the cache once", arguments: [false, true])
    func zipped(deflate: Bool) throws {
        let cache = TileWriter()
        defer { cache.remove() }
        let hgt = TileWriter.hgt(side: 1201, Self.plane)
        let folder = TileFolder([
            ("N41E002.SRTMGL3.hgt.zip", TileWriter.zip(name: "N41E002.hgt", hgt, deflate: deflate)),
        ])
        let dem = folder.read(cache: cache.dir)
        #expect(dem.tiles.first?.format == .hgtZip)
        #expect(dem.tiles.first?.used == true)
        #expect(abs(dem.elevation(latitude: 42 - 10.5 / 1200, longitude: 2 + 20.25 / 1200).metres - 151) < 1e-9)
        let unpacked = (try? FileManager.default.contentsOfDirectory(atPath: cache.dir)) ?? []
        #expect(unpacked.count == (deflate ? 1 : 0))
    }

    @Test("a .zip that is not one, one without an .hgt and one cut short are each named with what is wrong")
    func badZips() {
        let hgt = TileWriter.hgt(side: 1201) { _, _ in 1 }
        let good = TileWriter.zip(name: "N41E002.hgt", hgt, deflate: true)
        let folder = TileFolder([
            ("N41E002.hgt.zip", Array("this is not a zip archive at all, just words".utf8)),
            ("N42E002.hgt.zip", TileWriter.zip(name: "readme.txt", Array("hello".utf8), deflate: false)),
            ("N43E002.hgt.zip", Array(good.prefix(good.count / 2))),
        ])
        let dem = folder.read(cache: folder.path)
        let problems = Dictionary(uniqueKeysWithValues: dem.tiles.map { ($0.file, $0.problem ?? "") })
        #expect(problems["N41E002.hgt.zip"]?.contains("is not a zip archive") == true)
        #expect(problems["N42E002.hgt.zip"]?.contains("holds no .hgt") == true)
        #expect(problems["N43E002.hgt.zip"]?.contains("not a zip archive") == true)
        #expect(dem.cells.isEmpty)
    }

    @Test("of two tiles of the same cell the finer answers, and the other is listed as not used")
    func finerWins() {
        let glo = TileWriter.geoTIFF(width: 3600, height: 3600, block: 1024, georeference: copernicus(rows: 3600, columns: 3600)) { _, _ in 30 }
        let folder = TileFolder([
            ("N41E002.hgt", TileWriter.hgt(side: 1201) { _, _ in 3 }),
            ("Copernicus_DSM_COG_10_N41_00_E002_00_DEM.tif", glo),
        ])
        let dem = folder.read()
        #expect(dem.elevation(latitude: 41.5, longitude: 2.5).metres == 30)
        #expect(dem.tiles.first { $0.file == "N41E002.hgt" }?.problem?.contains("finer postings") == true)
    }
}
