import MoonRunnerCore
import Synchronization

/// An SRTM `.hgt` tile: big-endian signed 16-bit metres, rows from north to
/// south, −32768 in voids. Each lookup reads the two pairs of postings around
/// the point (two `pread`s of 4 bytes); the last two pairs read are kept,
/// since a runner stays between the same postings for ten seconds or more.
final class HGTTile: ElevationTile {
    let grid: ElevationGrid
    private let file: TileFile
    /// Where the postings start in the file (a stored entry of a zip starts later).
    private let start: Int
    private let last = Mutex(LastPairs())

    /// The two pairs read last (the rows above and below a runner).
    struct LastPairs {
        var keys = [(row: -1, column: -1), (row: -1, column: -1)]
        var pairs = [(Double.nan, Double.nan), (Double.nan, Double.nan)]
        var older = 0

        func find(row: Int, column: Int) -> (Double, Double)? {
            for i in 0..<2 where keys[i].row == row && keys[i].column == column { return pairs[i] }
            return nil
        }

        mutating func keep(row: Int, column: Int, _ pair: (Double, Double)) {
            keys[older] = (row, column)
            pairs[older] = pair
            older = 1 - older
        }
    }

    /// The value of a void, and of anything outside what a DEM on Earth can hold.
    static let void: Int16 = -32768

    /// A tile of `byteCount` bytes from `start` in `file`; the size must be one of the two SRTM grids.
    init(file: TileFile, cell: TileCell, start: Int = 0, byteCount: Int? = nil) throws(TerrainFileError) {
        let count = byteCount ?? file.size - start
        guard let grid = ElevationGrid.hgt(cell: cell, byteCount: count) else {
            throw TerrainFileError(file: file.name, "is \(count) bytes: a 1″ tile is \(ElevationGrid.hgtSizes[0]), "
                + "a 3″ one \(ElevationGrid.hgtSizes[1]) (truncated, or not an .hgt)")
        }
        guard file.size >= start + count else {
            throw TerrainFileError(file: file.name, "is truncated (\(file.size) bytes, \(start + count) expected)")
        }
        self.grid = grid
        self.file = file
        self.start = start
    }

    func posting(row: Int, column: Int) -> Double {
        guard row >= 0, row < grid.rows, column >= 0, column < grid.columns else { return .nan }
        // Postings come in horizontal pairs: the pair starting at an even column holds this one.
        let pairColumn = min(column, grid.columns - 2)
        let cached = last.withLock { $0.find(row: row, column: pairColumn) }
        let pair = cached ?? readPair(row: row, column: pairColumn)
        return column == pairColumn ? pair.0 : pair.1
    }

    private func readPair(row: Int, column: Int) -> (Double, Double) {
        var raw: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        let ok = withUnsafeMutableBytes(of: &raw) { file.read(into: $0, at: start + 2 * (row * grid.columns + column)) }
        let pair = ok ? (Self.value(raw.0, raw.1), Self.value(raw.2, raw.3)) : (Double.nan, Double.nan)
        last.withLock { $0.keep(row: row, column: column, pair) }
        return pair
    }

    private static func value(_ hi: UInt8, _ lo: UInt8) -> Double {
        let v = Int16(bitPattern: UInt16(hi) << 8 | UInt16(lo))
        return v == void ? .nan : Double(v)
    }
}
