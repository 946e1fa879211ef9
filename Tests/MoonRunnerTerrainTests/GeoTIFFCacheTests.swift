import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerTestSupport
import Testing
@testable import MoonRunnerTerrain

/// GeoTIFF blocks decoded once into the cache folder and read from there: the same values as the
/// tile, kept across readings of the folder, made afresh when the tile is replaced, decoded ahead
/// of the runner, and the tile still read when the cache cannot be written.
@Suite("GeoTIFF decoded blocks")
struct GeoTIFFCacheTests {
    /// 512 × 512 postings over N41E002 in blocks of 128: 16 blocks.
    static let side = 512
    static let block = 128
    static func ground(_ r: Int, _ c: Int) -> Float { 300 + Float(r) * 0.25 - Float(c) * 0.125 }
    static let tileName = "Copernicus_DSM_COG_10_N41_00_E002_00_DEM.tif"

    static func tile(_ value: @escaping (Int, Int) -> Float = ground) -> [UInt8] {
        TileWriter.geoTIFF(width: side, height: side, block: block, georeference: copernicus(rows: side, columns: side), value)
    }

    /// The point at posting (`row`, `column`) plus a fraction of a posting each way.
    static func point(_ row: Double, _ column: Double) -> (Double, Double) {
        (42 - row / Double(side), 2 + column / Double(side))
    }

    static func files(in dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    static func flags(in dir: String) -> [UInt8] {
        guard let name = files(in: dir).first(where: { $0.hasSuffix(".blocks") }),
              let data = FileManager.default.contents(atPath: dir + "/" + name) else { return [] }
        return Array(data)
    }

    @Test("through the cache a point reads what the tile holds, across the blocks' edges")
    func sameValues() {
        let folder = TileFolder([(Self.tileName, Self.tile())])
        let cache = TileWriter()
        defer { cache.remove() }
        let plain = folder.read()
        let cached = folder.read(cache: cache.dir)
        for (r, c) in [(5.5, 7.25), (127.5, 127.5), (128.0, 255.9), (300.3, 20.7), (510.5, 510.5), (0, 0)] {
            let (lat, lon) = Self.point(r, c)
            let a = plain.elevation(latitude: lat, longitude: lon).metres
            let b = cached.elevation(latitude: lat, longitude: lon).metres
            #expect(abs(a - b) < 1e-4, "posting \(r), \(c): \(a) without the cache, \(b) with it")
            let truth = 300 + r * 0.25 - c * 0.125
            #expect(abs(b - truth) < 1e-3)
        }
        #expect(Self.files(in: cache.dir).filter { $0.hasSuffix(".f32") }.count == 1)
        #expect(Self.flags(in: cache.dir).count == 16)
        #expect(Self.flags(in: cache.dir).contains(1))
    }

    @Test("a block decoded once is read from the cache by the next reading of the folder")
    func keptAcrossReadings() throws {
        let folder = TileFolder([(Self.tileName, Self.tile())])
        let cache = TileWriter()
        defer { cache.remove() }
        let (lat, lon) = Self.point(200, 200)
        #expect(abs(folder.read(cache: cache.dir).elevation(latitude: lat, longitude: lon).metres - 325) < 1e-3)
        // Change posting (200, 200) in the cache file only: a reading that decoded the tile again would not see it.
        let data = try #require(Self.files(in: cache.dir).first { $0.hasSuffix(".f32") })
        let fd = open(cache.dir + "/" + data, O_WRONLY)
        #expect(fd >= 0)
        var changed: Float = 1000
        // Block 5 (the second row of blocks, the second column), posting (72, 72) in it.
        #expect(pwrite(fd, &changed, 4, off_t((5 * Self.block * Self.block + 72 * Self.block + 72) * 4)) == 4)
        close(fd)
        #expect(folder.read(cache: cache.dir).elevation(latitude: lat, longitude: lon).metres == 1000)
    }

    @Test("a tile replaced under the same name gets a new cache, and the old one goes")
    func replaced() throws {
        let folder = TileFolder([(Self.tileName, Self.tile())])
        let cache = TileWriter()
        defer { cache.remove() }
        let (lat, lon) = Self.point(10, 10)
        #expect(abs(folder.read(cache: cache.dir).elevation(latitude: lat, longitude: lon).metres - 301.25) < 1e-3)
        let before = Self.files(in: cache.dir)
        // Another tile in its place (its size and time differ).
        folder.writer.write(Self.tileName, Self.tile { r, _ in r < 64 ? 50 : Float(r) })
        #expect(folder.read(cache: cache.dir).elevation(latitude: lat, longitude: lon).metres == 50)
        let after = Self.files(in: cache.dir)
        #expect(after.count == 2)
        #expect(Set(after).isDisjoint(with: before), "old: \(before), now: \(after)")
    }

    @Test("a block that cannot be decoded is kept as a void, and the rest of the tile is read")
    func unreadableBlock() {
        var broken = Self.tile { _, _ in 9 }
        // The blocks follow the 8-byte header: zero the first one's compressed bytes.
        for i in 8..<200 { broken[i] = 0 }
        let folder = TileFolder([(Self.tileName, broken)])
        let cache = TileWriter()
        defer { cache.remove() }
        let dem = folder.read(cache: cache.dir)
        let (lat, lon) = Self.point(10, 10)
        #expect(dem.elevation(latitude: lat, longitude: lon) == .void(TileCell(south: 41, west: 2)))
        let (lat2, lon2) = Self.point(400, 400)
        #expect(dem.elevation(latitude: lat2, longitude: lon2).metres == 9)
        #expect(Self.flags(in: cache.dir).first == 2)
    }

    @Test("near a block's edge the next block is decoded ahead, on its own thread")
    func decodedAhead() async throws {
        let folder = TileFolder([(Self.tileName, Self.tile())])
        let cache = TileWriter()
        defer { cache.remove() }
        let dem = folder.read(cache: cache.dir)
        // Posting (60, 120): in block 0, 8 postings from the edge of block 1 (to the east), far from block 4 (south).
        let (lat, lon) = Self.point(60, 120)
        _ = dem.elevation(latitude: lat, longitude: lon)
        #expect(Self.flags(in: cache.dir)[0] == 1)
        let deadline = ContinuousClock.now + .seconds(10)
        while Self.flags(in: cache.dir)[1] != 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let flags = Self.flags(in: cache.dir)
        #expect(flags[1] == 1, "the eastern block: \(flags)")
        #expect(flags[4] == 0 && flags[5] == 0, "nothing south: \(flags)")
    }

    @Test("decoded data deleted under its flags is decoded again, never read as zeros")
    func dataDeleted() throws {
        let folder = TileFolder([(Self.tileName, Self.tile())])
        let cache = TileWriter()
        defer { cache.remove() }
        let (lat, lon) = Self.point(200, 200)
        _ = folder.read(cache: cache.dir).elevation(latitude: lat, longitude: lon)
        #expect(Self.flags(in: cache.dir).contains(1))
        let data = try #require(Self.files(in: cache.dir).first { $0.hasSuffix(".f32") })
        unlink(cache.dir + "/" + data)
        #expect(abs(folder.read(cache: cache.dir).elevation(latitude: lat, longitude: lon).metres - 325) < 1e-3)
    }

    @Test("a full disk under the cache: the tile is read by the window, and no block is decoded into it again",
          .enabled(if: getuid() == 0, "mounts a tmpfs: needs root (CI runs make test as root)"))
    func diskFull() throws {
        let folder = TileFolder([(Self.tileName, Self.tile())])
        let cache = TileWriter()
        defer { cache.remove() }
        // 16 KiB: the flags and a few rows of a block (64 KiB) fit, the block does not.
        let mounted = mount("tmpfs", cache.dir, "tmpfs", 0, "size=16k")
        try #require(mounted == 0, "cannot mount a tmpfs: \(String(cString: strerror(errno)))")
        defer { umount2(cache.dir, Int32(MNT_DETACH)) }
        let dem = folder.read(cache: cache.dir)
        for (r, c) in [(10.5, 10.5), (200.0, 300.0), (400.25, 100.75)] {
            let (lat, lon) = Self.point(r, c)
            #expect(abs(dem.elevation(latitude: lat, longitude: lon).metres - (300 + r * 0.25 - c * 0.125)) < 1e-3)
        }
        #expect(Self.flags(in: cache.dir).allSatisfy { $0 == 0 }, "\(Self.flags(in: cache.dir))")
        let tile = try GeoTIFFTile(path: folder.path + "/" + Self.tileName, cacheDirectory: cache.dir)
        #expect(tile.usesCache, "the cache's files fit")
        #expect(tile.posting(row: 5, column: 5) == 300 + 1.25 - 0.625)
        #expect(!tile.usesCache, "a block that could not be written turns the cache off")
    }

    @Test("a cache folder that cannot be made leaves the tile read by the window")
    func unwritableCache() {
        let folder = TileFolder([(Self.tileName, Self.tile())])
        // A file where the folder should be.
        let blocker = folder.writer.write("not-a-folder", [1])
        let dem = folder.read(cache: blocker + "/cache")
        let (lat, lon) = Self.point(300, 100)
        #expect(abs(dem.elevation(latitude: lat, longitude: lon).metres - (300 + 75 - 12.5)) < 1e-3)
    }
}
