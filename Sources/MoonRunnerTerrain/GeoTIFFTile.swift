import CMalloc
import CTIFF
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerThreads
import Synchronization

/// A GeoTIFF elevation tile (Copernicus GLO-30 / GLO-90 as served: float32,
/// tiled 1024 × 1024, DEFLATE or LZW; any layout libtiff reads) through
/// Debian's libtiff. Nothing loads the tile.
///
/// With a cache folder each block is decoded once and kept there as metres
/// (`DecodedBlocks`), so a posting is a `pread`, as in an `.hgt`; a block is
/// decoded ahead, on a thread of its own, when a fix comes within a window of
/// its edge (at 1″, 3.8 km: ten minutes or more of running). Without one, a
/// posting is read with the 128 × 128 window around it (64 KiB), decoded from
/// its block into scratch memory handed back at once; the last four windows
/// are kept (a runner crosses one in 10–30 minutes). libtiff's buffers go
/// with the file, closed after each block.
final class GeoTIFFTile: ElevationTile {
    let grid: ElevationGrid
    let name: String
    private let path: String
    private let layout: GeoTIFFLayout
    private let windows = Mutex(WindowCache())
    /// The decoded blocks kept on disk; nil without a cache folder.
    private let decoded: DecodedBlocks?
    /// Postings on a window's side.
    static let window = 128

    init(path: String, cacheDirectory: String?) throws(TerrainFileError) {
        self.path = path
        let name = TileFile.baseName(path)
        self.name = name
        let tiff = try GeoTIFFFile(path: path, name: name)
        let layout = try tiff.layout()
        self.layout = layout
        do {
            grid = try tiff.georeference().grid(width: layout.width, height: layout.height)
        } catch {
            throw TerrainFileError(file: name, "\(error)")
        }
        decoded = cacheDirectory.flatMap { DecodedBlocks(tile: path, name: name, layout: layout, directory: $0) }
    }

    /// True while blocks are read from and decoded into the cache folder.
    var usesCache: Bool { decoded?.usable ?? false }

    func posting(row: Int, column: Int) -> Double {
        guard row >= 0, row < grid.rows, column >= 0, column < grid.columns else { return .nan }
        if let decoded {
            if let v = decoded.posting(row: row, column: column) {
                decodeAhead(row: row, column: column, into: decoded)
                return v
            }
            let origin = (row: row - row % layout.blockHeight, column: column - column % layout.blockWidth)
            if decoded.store(blockRow: origin.row, blockColumn: origin.column, decoding: { decodeBlock(at: origin, $0) }),
               let v = decoded.posting(row: row, column: column) {
                return v
            }
        }
        let key = WindowKey(row: row / Self.window, column: column / Self.window)
        return windows.withLock { cache in
            if let v = cache.value(key, row: row, column: column) { return v }
            cache.insert(key, load(key))
            return cache.value(key, row: row, column: column) ?? .nan
        }
    }

    /// Starts decoding the neighbouring blocks the point is within a window of (a quarter of a
    /// block for small ones, strips), each on its own short-lived thread.
    private func decodeAhead(row: Int, column: Int, into decoded: DecodedBlocks) {
        let inRow = row % layout.blockHeight, inColumn = column % layout.blockWidth
        let rowMargin = min(Self.window, layout.blockHeight / 4), columnMargin = min(Self.window, layout.blockWidth / 4)
        let v = inRow < rowMargin ? -1 : (layout.blockHeight - 1 - inRow < rowMargin ? 1 : 0)
        let h = inColumn < columnMargin ? -1 : (layout.blockWidth - 1 - inColumn < columnMargin ? 1 : 0)
        guard v != 0 || h != 0 else { return }
        for (dv, dh) in [(v, 0), (0, h), (v, h)] where dv != 0 || dh != 0 {
            let origin = (row: row - inRow + dv * layout.blockHeight, column: column - inColumn + dh * layout.blockWidth)
            guard origin.row >= 0, origin.row < layout.height, origin.column >= 0, origin.column < layout.width else { continue }
            let index = decoded.block(row: origin.row, column: origin.column)
            guard decoded.claim(index) else { continue }
            NamedThread.start(name: "dem-ahead") { [self] in
                decoded.store(blockRow: origin.row, blockColumn: origin.column) { decodeBlock(at: origin, $0) }
                decoded.finished(index)
            }
        }
    }

    /// Decodes the block whose first posting is `origin`, handing it to `body` (not called when
    /// the block cannot be read); false when the tile cannot be opened.
    private func decodeBlock(at origin: (row: Int, column: Int), _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        do {
            // The file (and libtiff's buffers) closed before the heap is trimmed.
            guard let tiff = try? GeoTIFFFile(path: path, name: name) else { return false }
            tiff.decodeBlock(row: origin.row, column: origin.column, layout: layout, body)
        }
        _ = malloc_trim(0)
        return true
    }

    /// The postings of one window (NaN where they cannot be read: the tile is a void there). The
    /// file is closed after it, and the heap trimmed: libtiff's buffer for a compressed block (up to
    /// 4 MB) raises glibc's threshold for mapping large blocks, so without it the next one would stay.
    private func load(_ key: WindowKey) -> [Float] {
        var values = [Float](repeating: .nan, count: Self.window * Self.window)
        decode(key, into: &values)
        _ = malloc_trim(0)
        return values
    }

    private func decode(_ key: WindowKey, into values: inout [Float]) {
        guard let tiff = try? GeoTIFFFile(path: path, name: name) else { return }
        let rows = (key.row * Self.window)..<min((key.row + 1) * Self.window, layout.height)
        let columns = (key.column * Self.window)..<min((key.column + 1) * Self.window, layout.width)
        var blockRow = rows.lowerBound - rows.lowerBound % layout.blockHeight
        while blockRow < rows.upperBound {
            var blockColumn = columns.lowerBound - columns.lowerBound % layout.blockWidth
            while blockColumn < columns.upperBound {
                tiff.decodeBlock(row: blockRow, column: blockColumn, layout: layout) { block in
                    copy(block, at: (blockRow, blockColumn), rows: rows, columns: columns, into: &values, key: key)
                }
                blockColumn += layout.blockWidth
            }
            blockRow += layout.blockHeight
        }
    }

    /// Copies the part of a decoded block that lies in the window, as metres (NaN for no data).
    private func copy(_ block: UnsafeRawBufferPointer, at origin: (row: Int, column: Int), rows: Range<Int>,
                      columns: Range<Int>, into values: inout [Float], key: WindowKey) {
        let r0 = max(rows.lowerBound, origin.row), r1 = min(rows.upperBound, origin.row + layout.blockHeight)
        let c0 = max(columns.lowerBound, origin.column), c1 = min(columns.upperBound, origin.column + layout.blockWidth)
        guard r0 < r1, c0 < c1 else { return }
        for r in r0..<r1 {
            for c in c0..<c1 {
                let index = (r - origin.row) * layout.blockWidth + (c - origin.column)
                let v = layout.sample(block, index)
                values[(r - key.row * Self.window) * Self.window + (c - key.column * Self.window)] = Float(v)
            }
        }
    }
}

struct WindowKey: Hashable {
    var row: Int
    var column: Int
}

/// The windows a GeoTIFF tile keeps: at most four, the least recently used goes.
struct WindowCache {
    private var keys: [WindowKey] = []
    private var windows: [[Float]] = []
    private var used: [Int] = []
    private var clock = 0
    static let capacity = 4

    mutating func value(_ key: WindowKey, row: Int, column: Int) -> Double? {
        guard let i = keys.firstIndex(of: key) else { return nil }
        clock += 1
        used[i] = clock
        let w = GeoTIFFTile.window
        return Double(windows[i][(row % w) * w + column % w])
    }

    mutating func insert(_ key: WindowKey, _ window: [Float]) {
        clock += 1
        if keys.count < Self.capacity {
            keys.append(key)
            windows.append(window)
            used.append(clock)
            return
        }
        let oldest = used.indices.min { used[$0] < used[$1] } ?? 0
        keys[oldest] = key
        windows[oldest] = window
        used[oldest] = clock
    }
}
