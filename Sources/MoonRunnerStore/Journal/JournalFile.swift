import Foundation

/// The file of checksummed records a commit writes (format: `JournalFormat`).
///
/// A commit appends one record and makes it durable before it counts. With
/// direct I/O (`DirectWriter`) that writes only the 512-byte blocks the record
/// fills (records start on a block; on a device whose direct I/O needs larger
/// blocks, the partial block before the record is rewritten with its earlier
/// bytes unchanged): 512 bytes per commit where a buffered write and
/// `fdatasync` dirtied a 4 KB page (Linux counts a page per write), and a
/// SQLite transaction eight or more. The file is preallocated (zeros written once,
/// so that an overwrite needs no allocation, size change or extent
/// conversion) and emptying it writes only a header with a new generation.
/// Where the file system refuses `O_DIRECT`, records are written as before
/// (`pwrite` and `fdatasync`), in the same format; `writeMode` says which.
///
/// One writer at a time holds `flock(LOCK_EX)` on the file for its life (the
/// daemon); others read what is complete.
final class JournalFile: @unchecked Sendable {
    /// Zeros written when the file is made: a half hour's commits fit (900 of 512 bytes).
    static let initialCapacity = 1 << 20
    /// What is preallocated when the disk has no room for `initialCapacity`, and the
    /// step the file grows by: a full disk refuses commits (reported), not the start.
    static let growthStep = 64 << 10
    static let maxRecord = JournalFormat.maxRecord

    let path: String
    private let fd: Int32
    /// True when this handle holds the writer's lock.
    let isWriter: Bool
    /// Offset just past the last whole record; appends go there (a torn tail is overwritten).
    private(set) var validLength = 0
    /// How appends reach the disk (for the daemon's log).
    private(set) var writeMode = "not written yet"
    private var direct: DirectWriter?
    private let allowDirect: Bool
    private var modeChosen = false
    /// The bytes of the block the next record starts in, before it (rewritten unchanged).
    private var tail: [UInt8] = []
    private var generation: UInt32 = 0
    private var lastSeq: UInt64?
    /// Preallocated bytes; 0 until the file is in format 2 (`reset` makes it so).
    private var capacity = 0
    /// The raw form of the last record appended in this generation, which the next
    /// record may be deflated against (`JournalCodec`); nil at a generation's start
    /// and when this handle did not write the last record.
    private(set) var chain: Data?

    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// The errno, when one said why.
        var code: Int32 = 0
    }

    /// Opens (creating) the journal. With `lock`, takes the writer's lock
    /// without waiting; `isWriter` says whether it was free. `direct: false`
    /// writes through the page cache (tests of the fallback).
    init(path: String, lock: Bool, direct: Bool = true) throws {
        self.path = path
        allowDirect = direct
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        isWriter = lock && flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    deinit { close(fd) }

    /// The payloads of every whole record, in order; remembers where they end.
    func readAll() -> [Data] { readRecords().map(\.payload) }

    /// Every whole record of the current generation, in order (format 1: seq 0).
    func readRecords() -> [JournalFormat.Record] {
        let size = Int(lseek(fd, 0, SEEK_END))
        var bytes = [UInt8](repeating: 0, count: max(size, 0))
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress.map { $0 + got }, size - got, off_t(got)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        let contents = JournalFormat.parse(Array(bytes.prefix(got)))
        let formatted: Bool = contents.generation != nil && got >= JournalFormat.dataStart
        capacity = formatted ? got : 0
        generation = contents.generation ?? 0
        validLength = contents.end
        lastSeq = contents.records.last?.seq
        chain = nil
        tail = []
        if formatted, let direct {
            // Up to the end of the records' last block (past the file's end, zeros).
            let start = validLength / direct.align * direct.align
            tail = Array(bytes[min(start, got)..<min(validLength, got)])
            tail += [UInt8](repeating: 0, count: validLength - start - tail.count)
        }
        return contents.records
    }

    /// Appends record `seq` and makes it durable. A failed append leaves the
    /// records before it as they were; a retry writes over what it left.
    /// `raw`: what the payload was deflated from, which the next one may be deflated
    /// against (`chain`). A journal in format 1 must have been taken in (and reset) first.
    func append(_ payload: Data, seq: UInt64, raw: Data? = nil) throws {
        if capacity == 0 { _ = readRecords() }
        if capacity == 0 { try reset() }
        if !modeChosen {
            // Opened on records already there: the block the next one starts in is read back.
            chooseWriteMode()
            if let direct { tail = try readBack(from: validLength / direct.align * direct.align) }
        }
        let record = JournalFormat.record(payload, seq: seq, generation: generation)
        let end = JournalFormat.aligned(validLength + record.count)
        if end > capacity { try grow(to: end) }
        if let direct {
            let start = validLength - tail.count
            let bytes = tail + record + [UInt8](repeating: 0, count: end - validLength - record.count)
            do throws(DirectWriter.WriteError) {
                try direct.write(bytes[...], at: start)
            } catch {
                throw Failure(description: "cannot write the journal \(path): \(Self.reason(error.code))")
            }
            let newStart = end / direct.align * direct.align
            tail = Array(bytes[(newStart - start)...])
        } else {
            try writeBuffered(record[...], at: validLength, what: "write")
        }
        validLength = end
        lastSeq = seq
        chain = raw
    }

    /// Empties the journal once its records are safely elsewhere: a header
    /// with the next generation (the first time, the file is preallocated).
    func reset() throws {
        if capacity == 0 { try format() }
        chooseWriteMode()
        let next = generation &+ 1
        try writeHeader(next)
        generation = next
        validLength = JournalFormat.dataStart
        tail = []
        lastSeq = nil
        chain = nil
    }

    /// Empties the journal if its last record is `seq` or older (a commit
    /// appended since stays, to be skipped by number if found again).
    func reset(through seq: UInt64) throws {
        if let lastSeq, lastSeq > seq { return }
        try reset()
    }

    /// Zeros over the whole file and the first header: the blocks are allocated and written,
    /// stale records of format 1 gone. Then the write mode is chosen.
    private func format() throws {
        guard ftruncate(fd, 0) == 0 else { throw failure("empty") }
        var size = Self.initialCapacity
        do {
            try writeBuffered([UInt8](repeating: 0, count: size)[...], at: 0, what: "preallocate")
        } catch let failure as Failure where failure.code == ENOSPC || failure.code == EDQUOT {
            // What the refused write took is given back first.
            guard ftruncate(fd, 0) == 0 else { throw failure }
            size = Self.growthStep
            try writeBuffered([UInt8](repeating: 0, count: size)[...], at: 0, what: "preallocate")
        }
        capacity = size
        generation = UInt32.random(in: 1...UInt32.max)
    }

    /// Direct I/O when the file system takes it, else buffered; decided once, at the first write.
    private func chooseWriteMode() {
        guard !modeChosen else { return }
        modeChosen = true
        guard allowDirect else {
            writeMode = "buffered writes and fdatasync"
            return
        }
        let (writer, reason) = DirectWriter.make(path)
        direct = writer
        writeMode = writer.map { "direct I/O in \($0.align)-byte blocks (O_DIRECT, O_DSYNC)" }
            ?? "buffered writes and fdatasync (\(reason ?? "no O_DIRECT"))"
    }

    /// The header, directly when possible; a refused direct write (EINVAL) tries
    /// 4 KiB blocks, then falls back to buffered writes for the file's life.
    private func writeHeader(_ generation: UInt32) throws {
        let header = JournalFormat.header(generation: generation)
        while let direct {
            do throws(DirectWriter.WriteError) {
                try direct.write(header[...], at: 0)
                return
            } catch where error.code == EINVAL {
                if direct.coarsen() { continue }
                self.direct = nil
                writeMode = "buffered writes and fdatasync (O_DIRECT refused: \(String(cString: strerror(EINVAL))))"
            } catch {
                throw Failure(description: "cannot write the journal \(path): \(Self.reason(error.code))")
            }
        }
        try writeBuffered(header[...], at: 0, what: "write")
    }

    /// More preallocated room (a session that commits more between two consolidations
    /// than the file holds, or a file preallocated small on a full disk).
    private func grow(to end: Int) throws {
        let step = Self.growthStep
        let target = (end + step - 1) / step * step
        let zeros = [UInt8](repeating: 0, count: target - capacity)
        do {
            try writeBuffered(zeros[...], at: capacity, what: "grow")
        } catch {
            _ = ftruncate(fd, off_t(capacity))  // a full disk keeps its last bytes for the database
            throw error
        }
        capacity = target
    }

    private func writeBuffered(_ bytes: ArraySlice<UInt8>, at offset: Int, what: String) throws {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { p in
                pwrite(fd, p.baseAddress.map { $0 + written }, p.count - written, off_t(offset + written))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(what)
            }
            written += n
        }
        guard fdatasync(fd) == 0 else { throw failure("sync") }
    }

    /// The file's bytes from `start` to the end of the records.
    private func readBack(from start: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: validLength - start)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(start)) }
        guard n >= 0 else { throw failure("read") }
        return bytes  // past the file's end: zeros
    }

    private func failure(_ what: String) -> Failure {
        let code = errno
        return Failure(description: "cannot \(what) the journal \(path): \(Self.reason(code))", code: code)
    }

    /// What went wrong, in words a wearer can act on.
    private static func reason(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return code == ENOSPC || code == EDQUOT ? "the disk is full (\(text))" : text
    }
}
