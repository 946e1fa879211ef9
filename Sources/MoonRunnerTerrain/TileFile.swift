import FoundationEssentials
import Glibc
import MoonRunnerSystem

/// A tile's file, open for reading at any offset (`pread`): a lookup reads the
/// few bytes it needs, nothing is mapped or kept in memory, and a file cut
/// short or replaced under the reader is a short read (an error), never a
/// SIGBUS. This file only turns system calls into `TerrainFileError`s.
final class TileFile: Sendable {
    let name: String
    let path: String
    /// Size when opened, bytes.
    let size: Int
    private let fd: Int32

    init(path: String) throws(TerrainFileError) {
        self.path = path
        name = TileFile.baseName(path)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TerrainFileError(file: name, "cannot be opened: \(errnoText(errno))") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw TerrainFileError(file: name, "is not a regular file")
        }
        self.fd = fd
        size = Int(st.st_size)
    }

    deinit {
        close(fd)
    }

    /// Fills `buffer` from `offset`; false when the file ends before it is full or cannot be read.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
        var done = 0
        while done < buffer.count {
            guard let base = buffer.baseAddress else { return false }
            let n = pread(fd, base + done, buffer.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// `count` bytes from `offset`, or an error naming the file.
    func bytes(at offset: Int, count: Int) throws(TerrainFileError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBytes { read(into: $0, at: offset) }
        guard ok else { throw TerrainFileError(file: name, "is truncated (ends before byte \(offset + count))") }
        return out
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }
}
