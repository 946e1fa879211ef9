import FoundationEssentials
import Glibc
import MoonRunnerCore
import Synchronization

/// A GeoTIFF tile's blocks as metres, decoded once and kept in the cache
/// folder, so that a lookup costs what an `.hgt`'s does (a `pread` of a pair
/// of postings) instead of a DEFLATE block (65 ms for a GLO-30 block of
/// 1024 × 1024 on an amd64 core, see `moonrunner-bench`).
///
/// Two files per tile, named by its name, size and modification time (a
/// replaced tile gets new ones): `.f32`, the blocks as native float32 rows
/// (NaN in voids), sparse, so only decoded blocks take disk (4 MB each); and
/// `.blocks`, a byte per block (0 not yet, 1 decoded, 2 unreadable: a void).
/// A block's data is `fdatasync`ed before its byte says so: a power cut loses
/// at most a decoding, never returns zeros as ground. Nothing is mapped:
/// resident memory is the block bytes and the last four pairs of postings.
final class DecodedBlocks: Sendable {
    private let data: Int32
    private let flags: Int32
    private let layout: GeoTIFFLayout
    private let blocksAcross: Int
    private let state: Mutex<State>

    enum Block: UInt8 {
        case absent = 0, decoded = 1, unreadable = 2
    }

    private struct State {
        var blocks: [UInt8]
        /// The last pairs read: (row, even column) and the two postings from there.
        var keys: [(row: Int, column: Int)] = Array(repeating: (-1, -1), count: 4)
        var pairs: [(Float, Float)] = Array(repeating: (.nan, .nan), count: 4)
        var next = 0
        /// Blocks being decoded ahead of the runner.
        var ahead: Set<Int> = []
        /// A block could not be written (a full disk): nothing more is decoded into the cache, and
        /// the tile is read by the window (what is kept stays readable).
        var failed = false
    }

    /// The cache of tile `name` (at `path`) in `directory`; nil when the folder cannot be written
    /// (the tile is then read by the window, as without a cache).
    init?(tile path: String, name: String, layout: GeoTIFFLayout, directory: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let stamp = "\(st.st_size)-\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        let base = directory + "/" + name + "." + stamp
        self.layout = layout
        blocksAcross = (layout.width + layout.blockWidth - 1) / layout.blockWidth
        let blockCount = blocksAcross * ((layout.height + layout.blockHeight - 1) / layout.blockHeight)
        mkdir(directory, 0o750)
        Self.removeStale(of: name, keeping: name + "." + stamp, in: directory)
        let dataBytes = blockCount * layout.blockWidth * layout.blockHeight * MemoryLayout<Float>.size
        guard let (data, emptied) = Self.open(base + ".f32", size: dataBytes) else { return nil }
        // Data made afresh (or cut back) holds no block, whatever the flags said.
        guard let (flags, _) = Self.open(base + ".blocks", size: blockCount, emptied: emptied) else {
            close(data)
            return nil
        }
        var blocks = [UInt8](repeating: 0, count: blockCount)
        let n = blocks.withUnsafeMutableBytes { pread(flags, $0.baseAddress, blockCount, 0) }
        if n != blockCount { blocks = [UInt8](repeating: 0, count: blockCount) }
        self.data = data
        self.flags = flags
        state = Mutex(State(blocks: blocks))
    }

    deinit {
        close(data)
        close(flags)
    }

    /// False once a block could not be written.
    var usable: Bool { state.withLock { !$0.failed } }

    /// The block holding posting (`row`, `column`).
    func block(row: Int, column: Int) -> Int {
        (row / layout.blockHeight) * blocksAcross + column / layout.blockWidth
    }

    func status(ofBlock index: Int) -> Block {
        state.withLock { Block(rawValue: $0.blocks[index]) ?? .absent }
    }

    /// True when block `index` is neither kept nor being decoded: the caller decodes it ahead
    /// (and calls `finished(_:)` after).
    func claim(_ index: Int) -> Bool {
        state.withLock { s in
            guard !s.failed, s.blocks[index] == Block.absent.rawValue, !s.ahead.contains(index) else { return false }
            s.ahead.insert(index)
            return true
        }
    }

    func finished(_ index: Int) {
        _ = state.withLock { $0.ahead.remove(index) }
    }

    /// The posting from the cache; nil when its block is not decoded yet.
    func posting(row: Int, column: Int) -> Double? {
        let index = block(row: row, column: column)
        let even = column & ~1
        let cached: (Block, (Float, Float)?) = state.withLock { s in
            let b = Block(rawValue: s.blocks[index]) ?? .absent
            guard b == .decoded else { return (b, nil) }
            for i in 0..<4 where s.keys[i].row == row && s.keys[i].column == even { return (b, s.pairs[i]) }
            return (b, nil)
        }
        switch cached {
        case (.absent, _): return nil
        case (.unreadable, _): return .nan
        case (_, let pair?): return Double(column == even ? pair.0 : pair.1)
        case (.decoded, nil):
            let pair = readPair(row: row, column: even)
            state.withLock { s in
                s.keys[s.next] = (row, even)
                s.pairs[s.next] = pair
                s.next = (s.next + 1) % 4
            }
            return Double(column == even ? pair.0 : pair.1)
        }
    }

    /// Where posting (`row`, `column`) is in the data file.
    private func offset(row: Int, column: Int) -> Int {
        let inBlock = (row % layout.blockHeight) * layout.blockWidth + column % layout.blockWidth
        return (block(row: row, column: column) * layout.blockWidth * layout.blockHeight + inBlock) * MemoryLayout<Float>.size
    }

    /// Two postings from `column` (even); the second is NaN past the last column of the image.
    private func readPair(row: Int, column: Int) -> (Float, Float) {
        var pair: (Float, Float) = (.nan, .nan)
        // Blocks are an even number of postings wide (TIFF tiles: a multiple of 16) or the image's width.
        let count = column + 1 < layout.width && column % layout.blockWidth + 1 < layout.blockWidth ? 8 : 4
        let offset = offset(row: row, column: column)
        let n = withUnsafeMutableBytes(of: &pair) { raw in Self.retrying { pread(data, raw.baseAddress, count, off_t(offset)) } }
        return n == count ? pair : (.nan, .nan)
    }

    /// Keeps a decoded block. `decoding` hands the block to its argument as libtiff decoded it, or
    /// not at all when the block cannot be read (a void from then on), and returns false when the
    /// tile could not even be opened (nothing is marked: it may open next time). False when nothing
    /// was kept.
    @discardableResult
    func store(blockRow: Int, blockColumn: Int, decoding: ((UnsafeRawBufferPointer) -> Void) -> Bool) -> Bool {
        let index = block(row: blockRow, column: blockColumn)
        guard !state.withLock({ $0.failed }) else { return false }
        var written = false
        var decoded = false
        let opened = decoding { block in
            decoded = true
            written = write(block, at: (blockRow, blockColumn))
        }
        guard opened else { return false }
        guard !decoded || (written && fdatasync(data) == 0) else {
            state.withLock { $0.failed = true }
            return false
        }
        let mark: Block = decoded ? .decoded : .unreadable
        var byte = mark.rawValue
        _ = Self.retrying { pwrite(flags, &byte, 1, off_t(index)) }
        state.withLock { $0.blocks[index] = mark.rawValue }
        return true
    }

    /// The block's rows as metres (NaN for no data and past the image's edge), in its place.
    private func write(_ block: UnsafeRawBufferPointer, at origin: (row: Int, column: Int)) -> Bool {
        let columns = min(layout.blockWidth, layout.width - origin.column)
        let rows = min(layout.blockHeight, layout.height - origin.row)
        var line = [Float](repeating: .nan, count: layout.blockWidth)
        for r in 0..<rows {
            for c in 0..<columns {
                line[c] = Float(layout.sample(block, r * layout.blockWidth + c))
            }
            let offset = offset(row: origin.row + r, column: origin.column)
            let bytes = layout.blockWidth * MemoryLayout<Float>.size
            let n = line.withUnsafeBytes { raw in Self.retrying { pwrite(data, raw.baseAddress, bytes, off_t(offset)) } }
            guard n == bytes else { return false }
        }
        return true
    }

    /// A file of exactly `size` bytes, and whether it was emptied: made, or cut back to zeros when
    /// its size is wrong or `emptied` says so.
    private static func open(_ path: String, size: Int, emptied: Bool = false) -> (Int32, Bool)? {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            return nil
        }
        let empty = emptied || Int(st.st_size) != size
        if empty {
            guard ftruncate(fd, 0) == 0, ftruncate(fd, off_t(size)) == 0 else {
                close(fd)
                return nil
            }
        }
        return (fd, empty)
    }

    /// Another version's files of the same tile (it was replaced): they would never be read again.
    private static func removeStale(of name: String, keeping current: String, in directory: String) {
        for file in DEMDirectory.names(in: directory) where file.hasPrefix(name + ".") && !file.hasPrefix(current + ".") {
            if file.hasSuffix(".f32") || file.hasSuffix(".blocks") { unlink(directory + "/" + file) }
        }
    }

    private static func retrying(_ call: () -> Int) -> Int {
        while true {
            let n = call()
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }
}
