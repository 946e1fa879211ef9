/// The entries of a zip archive, from its central directory (PKWARE's
/// APPNOTE: the end-of-central-directory record in the last 64 KiB, then one
/// header per entry), as far as a zipped `.hgt` needs: the name, how it is
/// stored (0, stored; 8, deflated), its sizes, CRC-32 and where its data
/// begins. Zip64 archives (over 4 GiB) are not tiles and are refused.
struct ZipArchive {
    struct Entry: Equatable {
        var name: String
        /// 0 stored, 8 deflated.
        var method: UInt16
        var crc32: UInt32
        /// Bytes in the archive, bytes unpacked, and where its data starts (after the local header).
        var compressedSize, size, dataOffset: Int
    }

    let entries: [Entry]

    init(file: TileFile) throws(TerrainFileError) {
        let notZip = TerrainFileError(file: file.name, "is not a zip archive (no end-of-central-directory record)")
        let tailCount = min(file.size, 65_535 + 22)
        guard tailCount >= 22 else { throw notZip }
        let tail = try file.bytes(at: file.size - tailCount, count: tailCount)
        guard let eocd = (0...(tailCount - 22)).reversed().first(where: { Self.u32(tail, $0) == 0x0605_4B50 }) else {
            throw notZip
        }
        let count = Int(Self.u16(tail, eocd + 10))
        let directorySize = Int(Self.u32(tail, eocd + 12))
        let directoryOffset = Int(Self.u32(tail, eocd + 16))
        guard directoryOffset + directorySize <= file.size else {
            throw TerrainFileError(file: file.name, "is a truncated zip archive (its directory lies beyond its end)")
        }
        let directory = try file.bytes(at: directoryOffset, count: directorySize)
        var entries: [Entry] = []
        var at = 0
        for _ in 0..<count {
            guard at + 46 <= directory.count, Self.u32(directory, at) == 0x0201_4B50 else {
                throw TerrainFileError(file: file.name, "is a damaged zip archive (a broken directory entry)")
            }
            let nameLength = Int(Self.u16(directory, at + 28))
            let skip = nameLength + Int(Self.u16(directory, at + 30)) + Int(Self.u16(directory, at + 32))
            guard at + 46 + nameLength <= directory.count else {
                throw TerrainFileError(file: file.name, "is a damaged zip archive (a broken directory entry)")
            }
            let local = Int(Self.u32(directory, at + 42))
            let header = try file.bytes(at: local, count: 30)
            guard Self.u32(header, 0) == 0x0403_4B50 else {
                throw TerrainFileError(file: file.name, "is a damaged zip archive (an entry's header is missing)")
            }
            let dataOffset = local + 30 + Int(Self.u16(header, 26)) + Int(Self.u16(header, 28))
            entries.append(Entry(name: String(decoding: directory[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self),
                                 method: Self.u16(directory, at + 10), crc32: Self.u32(directory, at + 16),
                                 compressedSize: Int(Self.u32(directory, at + 20)), size: Int(Self.u32(directory, at + 24)),
                                 dataOffset: dataOffset))
            at += 46 + skip
        }
        self.entries = entries
    }

    static func u16(_ b: [UInt8], _ at: Int) -> UInt16 {
        UInt16(b[at]) | UInt16(b[at + 1]) << 8
    }

    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}
