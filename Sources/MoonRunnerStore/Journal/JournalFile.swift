import CZlib
import Foundation

/// An append-only file of checksummed records: what a commit writes.
///
/// A commit appends one record and `fdatasync`s it: one page of the file
/// cache dirtied per commit (about 4 KB), where a SQLite transaction touching
/// a table, its index, a second table and the session row costs eight or more
/// (and again when the WAL is checkpointed). A record is
/// `magic, length, CRC-32, payload`; reading stops at the first record that
/// is short, has another magic or a wrong checksum: a record torn by a power
/// cut is discarded whole, the ones before it are kept.
///
/// One writer at a time holds `flock(LOCK_EX)` on the file for its life (the
/// daemon); others read what is complete.
final class JournalFile: @unchecked Sendable {
    static let magic: UInt32 = 0x314A_524D  // "MRJ1", little-endian
    static let headerSize = 12
    static let maxRecord = 64 << 20

    let path: String
    private let fd: Int32
    /// True when this handle holds the writer's lock.
    let isWriter: Bool
    /// Bytes of whole records; appends go there (a torn tail is overwritten).
    private(set) var validLength = 0

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Opens (creating) the journal. With `lock`, takes the writer's lock
    /// without waiting; `isWriter` says whether it was free.
    init(path: String, lock: Bool) throws {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        isWriter = lock && flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    deinit { close(fd) }

    /// The payloads of every whole record, in order; remembers where they end.
    func readAll() -> [Data] {
        var out: [Data] = []
        let size = Int(lseek(fd, 0, SEEK_END))
        guard size > 0 else {
            validLength = 0
            return out
        }
        var bytes = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, size, 0) }
        var at = 0
        while n > 0, at + Self.headerSize <= n {
            let magic = Self.u32(bytes, at), length = Int(Self.u32(bytes, at + 4)), crc = Self.u32(bytes, at + 8)
            guard magic == Self.magic, length <= Self.maxRecord, at + Self.headerSize + length <= n else { break }
            let start = at + Self.headerSize
            guard Self.crc32(bytes, start, length) == crc else { break }
            out.append(Data(bytes[start..<(start + length)]))
            at = start + length
        }
        validLength = at
        return out
    }

    /// Appends one record and makes it durable. On failure the file is cut
    /// back to its last whole record, so a retry does not follow a torn one.
    func append(_ payload: Data) throws {
        var record = [UInt8]()
        record.reserveCapacity(Self.headerSize + payload.count)
        Self.put(&record, Self.magic)
        Self.put(&record, UInt32(payload.count))
        let body = [UInt8](payload)
        Self.put(&record, Self.crc32(body, 0, body.count))
        record += body
        var written = 0
        while written < record.count {
            let n = record[written...].withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(validLength + written)) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = Self.reason(errno)
                _ = ftruncate(fd, off_t(validLength))
                throw Failure(description: "cannot write the journal \(path): \(reason)")
            }
            written += n
        }
        guard fdatasync(fd) == 0 else {
            let reason = Self.reason(errno)
            _ = ftruncate(fd, off_t(validLength))
            throw Failure(description: "cannot sync the journal \(path): \(reason)")
        }
        validLength += record.count
    }

    /// Empties the journal once its records are safely elsewhere.
    func reset() throws {
        guard ftruncate(fd, 0) == 0, fsync(fd) == 0 else {
            throw Failure(description: "cannot empty the journal \(path): \(String(cString: strerror(errno)))")
        }
        validLength = 0
    }

    /// What went wrong, in words a wearer can act on.
    private static func reason(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return code == ENOSPC || code == EDQUOT ? "the disk is full (\(text))" : text
    }

    private static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    private static func put(_ b: inout [UInt8], _ v: UInt32) {
        b += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }

    private static func crc32(_ b: [UInt8], _ start: Int, _ count: Int) -> UInt32 {
        b.withUnsafeBufferPointer { p in
            UInt32(CZlib.crc32(0, p.baseAddress.map { $0 + start }, uInt(count)))
        }
    }
}
