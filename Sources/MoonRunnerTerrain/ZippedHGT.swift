import CZlib
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerSystem

/// An `.hgt.zip` as NASA and viewfinderpanoramas serve them: one `.hgt`
/// entry, stored or deflated. A stored entry is read in place. A deflated
/// one cannot be read at an offset, so it is inflated once, 64 KiB at a
/// time, into `cacheDirectory` (named by the entry's CRC-32, checked) and
/// read there like any `.hgt`: the next start finds it and inflates nothing.
enum ZippedHGT {
    static func open(file: TileFile, cell: TileCell, cacheDirectory: String?) throws(TerrainFileError) -> HGTTile {
        let archive = try ZipArchive(file: file)
        let hgts = archive.entries.filter { $0.name.lowercased().hasSuffix(".hgt") }
        guard let entry = hgts.first(where: { TileCell(fileName: TileFile.baseName($0.name)) == cell }) ?? hgts.first else {
            throw TerrainFileError(file: file.name, "holds no .hgt (\(archive.entries.count) entries)")
        }
        guard entry.dataOffset + entry.compressedSize <= file.size else {
            throw TerrainFileError(file: file.name, "is truncated (its .hgt ends beyond the archive)")
        }
        switch entry.method {
        case 0:
            return try HGTTile(file: file, cell: cell, start: entry.dataOffset, byteCount: entry.size)
        case 8:
            guard ElevationGrid.hgt(cell: cell, byteCount: entry.size) != nil else {
                throw TerrainFileError(file: file.name, "holds \(entry.name) of \(entry.size) bytes: not a 1″ or 3″ tile")
            }
            let path = try unpacked(entry, of: file, cacheDirectory: cacheDirectory)
            return try HGTTile(file: TileFile(path: path), cell: cell)
        default:
            throw TerrainFileError(file: file.name, "stores its .hgt with compression method \(entry.method) (only stored and deflated are read)")
        }
    }

    /// The inflated entry's path in the cache (inflated now when it is not there yet).
    private static func unpacked(_ entry: ZipArchive.Entry, of file: TileFile, cacheDirectory: String?) throws(TerrainFileError) -> String {
        guard let dir = cacheDirectory else {
            throw TerrainFileError(file: file.name, "is deflated and there is no cache folder to unpack it into")
        }
        let crc = String(entry.crc32, radix: 16)
        let path = dir + "/" + TileFile.baseName(entry.name) + "." + crc + ".unpacked"
        var st = stat()
        if stat(path, &st) == 0, Int(st.st_size) == entry.size { return path }
        mkdir(dir, 0o750)
        let partial = path + ".part"
        let out = Glibc.open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard out >= 0 else {
            throw TerrainFileError(file: file.name, "cannot be unpacked into \(dir): \(errnoText(errno))")
        }
        defer { close(out) }
        do {
            try inflate(entry, of: file, into: out)
        } catch {
            unlink(partial)
            throw error
        }
        guard fsync(out) == 0, rename(partial, path) == 0 else {
            unlink(partial)
            throw TerrainFileError(file: file.name, "cannot be unpacked into \(dir): \(errnoText(errno))")
        }
        return path
    }

    /// Raw deflate (zip's method 8) from the archive to `fd`, checking size and CRC-32.
    private static func inflate(_ entry: ZipArchive.Entry, of file: TileFile, into fd: Int32) throws(TerrainFileError) {
        let damaged = TerrainFileError(file: file.name, "holds a damaged .hgt (it does not inflate)")
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw damaged }
        defer { inflateEnd(&stream) }
        let chunk = 65_536
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer {
            input.deallocate()
            output.deallocate()
        }
        var read = 0, written = 0
        var crc = crc32(0, nil, 0)
        var status = Z_OK
        while status != Z_STREAM_END {
            let n = min(chunk, entry.compressedSize - read)
            guard n > 0 else { throw damaged }
            guard file.read(into: UnsafeMutableRawBufferPointer(rebasing: input[0..<n]), at: entry.dataOffset + read) else {
                throw TerrainFileError(file: file.name, "is truncated")
            }
            read += n
            stream.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.avail_in = UInt32(n)
            repeat {
                stream.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
                stream.avail_out = UInt32(chunk)
                status = CZlib.inflate(&stream, Z_NO_FLUSH)
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { throw damaged }
                let produced = chunk - Int(stream.avail_out)
                crc = crc32(crc, output.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(produced))
                guard Glibc.write(fd, output.baseAddress, produced) == produced else {
                    throw TerrainFileError(file: file.name, "cannot be unpacked: \(errnoText(errno))")
                }
                written += produced
            } while stream.avail_out == 0 && status != Z_STREAM_END
        }
        guard written == entry.size, UInt32(crc) == entry.crc32 else {
            throw TerrainFileError(file: file.name, "holds a damaged .hgt (size or CRC-32 does not match)")
        }
    }
}
