import CDirectIO
import Foundation
import Glibc

/// Writes whole aligned blocks of the journal with `O_DIRECT | O_DSYNC`.
///
/// Why: Linux counts a buffered write as one 4 KiB page dirtied however few
/// bytes change, so a 300-byte commit cost 4 KiB of the SD card's writes;
/// a direct write costs its own size, which only has to be a multiple of the
/// device's logical block (usually 512 bytes). `O_DSYNC` makes each write
/// durable before it returns (a FUA write or a cache flush), as `fdatasync`
/// did. The file's blocks must already be allocated and written (the journal
/// is preallocated), so that an overwrite changes no metadata.
final class DirectWriter {
    let fd: Int32
    /// File offsets and lengths are multiples of this.
    private(set) var align: Int
    private let memAlign: Int
    /// One aligned buffer for the writer's life, grown (rarely) for a large record.
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int

    /// Opens `path` for direct writes; nil with the reason when the file system refuses them.
    static func make(_ path: String) -> (DirectWriter?, reason: String?) {
        let fd = Glibc.open(path, O_WRONLY | O_CLOEXEC | mr_o_direct() | mr_o_dsync())
        guard fd >= 0 else { return (nil, "O_DIRECT refused: \(String(cString: strerror(errno)))") }
        var mem: UInt32 = 0, offset: UInt32 = 0
        // statx's STATX_DIOALIGN (Linux 6.1); without it, the usual logical block (probed on failure).
        let known = mr_dio_align(fd, &mem, &offset) == 0
        if known && offset == 0 {
            close(fd)
            return (nil, "the file system does not support O_DIRECT for this file")
        }
        let align = known ? Int(offset) : 512
        let memAlign = known ? max(Int(mem), 4096) : 4096
        guard align <= JournalFormat.dataStart, JournalFormat.dataStart % align == 0 else {
            close(fd)
            return (nil, "a direct I/O alignment of \(align) bytes")
        }
        guard let writer = DirectWriter(fd: fd, align: align, memAlign: memAlign, capacity: 64 << 10) else {
            close(fd)
            return (nil, "no memory for an aligned buffer")
        }
        return (writer, nil)
    }

    private init?(fd: Int32, align: Int, memAlign: Int, capacity: Int) {
        var p: UnsafeMutableRawPointer?
        guard posix_memalign(&p, memAlign, capacity) == 0, let p else { return nil }
        self.fd = fd
        self.align = align
        self.memAlign = memAlign
        buffer = p
        self.capacity = capacity
    }

    deinit {
        free(buffer)
        close(fd)
    }

    /// A larger block size after the device refused this one (EINVAL); false when there is none to try.
    func coarsen() -> Bool {
        guard align < 4096 else { return false }
        align = 4096
        return true
    }

    /// Writes `bytes` at `offset` (aligned), padded with zeros to the next
    /// block: durable when it returns. Throws the errno.
    func write(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(WriteError) {
        let length = (bytes.count + align - 1) / align * align
        if length > capacity {
            var p: UnsafeMutableRawPointer?
            guard posix_memalign(&p, memAlign, length) == 0, let p else { throw WriteError(code: ENOMEM) }
            free(buffer)
            buffer = p
            capacity = length
        }
        bytes.withUnsafeBytes { src in
            if let base = src.baseAddress { buffer.copyMemory(from: base, byteCount: src.count) }
        }
        (buffer + bytes.count).initializeMemory(as: UInt8.self, repeating: 0, count: length - bytes.count)
        var done = 0
        while done < length {
            let n = pwrite(fd, buffer + done, length - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw WriteError(code: errno)
            }
            // A short direct write ends on a block boundary; one that does not cannot be continued.
            guard n > 0, n % align == 0 else { throw WriteError(code: EIO) }
            done += n
        }
    }

    struct WriteError: Error {
        var code: Int32
    }
}
