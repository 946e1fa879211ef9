import CZlib
import FoundationEssentials
import Glibc
import MoonRunnerCore

/// Terrain tiles written for the tests and the bench, in a private folder: `.hgt` of a chosen
/// elevation function, zips of them (stored or deflated), and GeoTIFFs written byte by byte (tags,
/// strips or tiles, plain or DEFLATE) so that each can be broken on purpose.
public struct TileWriter: Sendable {
    public let dir: String

    public init() {
        var template = Array("/tmp/moonrunner-terrain-XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { buffer -> String in
            guard let base = buffer.baseAddress, let made = mkdtemp(base) else { return "/tmp" }
            return String(cString: made)
        }
    }

    public func remove() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] { unlink(dir + "/" + name) }
        rmdir(dir)
    }

    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) -> String {
        let path = dir + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// An SRTM `.hgt` of `side` postings each way over `cell`, `value(row, column)` metres (nil: a void).
    public static func hgt(side: Int, _ value: (Int, Int) -> Int?) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(side * side * 2)
        for r in 0..<side {
            for c in 0..<side {
                let v = UInt16(bitPattern: Int16(value(r, c) ?? -32768))
                out.append(UInt8(v >> 8))
                out.append(UInt8(v & 0xFF))
            }
        }
        return out
    }

    /// A zip archive of one entry, stored (method 0) or deflated (8).
    public static func zip(name: String, _ data: [UInt8], deflate: Bool) -> [UInt8] {
        let payload = deflate ? raw(data) : data
        let crc = UInt32(data.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) })
        let nameBytes = Array(name.utf8)
        let method: UInt16 = deflate ? 8 : 0
        var local = le32(0x0403_4B50) + le16(20) + le16(0) + le16(method) + le16(0) + le16(0) + le32(crc)
        local += le32(UInt32(payload.count)) + le32(UInt32(data.count)) + le16(UInt16(nameBytes.count)) + le16(0) + nameBytes
        var central = le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(method) + le16(0) + le16(0) + le32(crc)
        central += le32(UInt32(payload.count)) + le32(UInt32(data.count)) + le16(UInt16(nameBytes.count))
        central += le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(0) + nameBytes
        let directoryAt = local.count + payload.count
        var end = le32(0x0605_4B50) + le16(0) + le16(0) + le16(1) + le16(1)
        end += le32(UInt32(central.count)) + le32(UInt32(directoryAt)) + le16(0)
        return local + payload + central + end
    }

    /// Raw deflate (no zlib header), as zip stores it.
    public static func raw(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        deflateInit2_(&stream, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        var input = data
        var out = [UInt8](repeating: 0, count: data.count + 1024)
        let n = input.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = i.baseAddress
                stream.avail_in = UInt32(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = UInt32(o.count)
                deflate(&stream, Z_FINISH)
                return o.count - Int(stream.avail_out)
            }
        }
        deflateEnd(&stream)
        return Array(out[0..<n])
    }

    /// zlib's format (TIFF's DEFLATE, compression 8).
    public static func zlib(_ data: [UInt8]) -> [UInt8] {
        var size = compressBound(UInt(data.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        _ = out.withUnsafeMutableBufferPointer { o in data.withUnsafeBufferPointer { compress(o.baseAddress, &size, $0.baseAddress, UInt(data.count)) } }
        return Array(out[0..<Int(size)])
    }

    /// A little-endian float32 GeoTIFF of `width` × `height`, `value(row, column)`, in blocks of
    /// `block` × `block` (tiles) or strips of `block` rows; `tags` replaces or removes (nil) tags.
    public static func geoTIFF(width: Int, height: Int, tiled: Bool = true, block: Int = 16, deflate: Bool = true,
                        georeference: (scale: [Double], tiepoint: [Double], keys: [UInt16])?,
                        _ value: (Int, Int) -> Float) -> [UInt8] {
        let bw = tiled ? block : width, bh = block
        var blocks: [[UInt8]] = []
        for by in stride(from: 0, to: height, by: bh) {
            for bx in stride(from: 0, to: width, by: bw) {
                var raw = [UInt8]()
                for r in by..<(by + bh) {
                    if !tiled && r >= height { break }
                    for c in bx..<(bx + bw) {
                        let v = r < height && c < width ? value(r, c) : 0
                        raw += withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) }
                    }
                }
                blocks.append(deflate ? zlib(raw) : raw)
            }
        }
        var tags: [(UInt16, UInt16, [UInt8], Int)] = [
            (256, 4, le32(UInt32(width)), 1), (257, 4, le32(UInt32(height)), 1), (258, 3, le16(32), 1),
            (259, 3, le16(deflate ? 8 : 1), 1), (262, 3, le16(1), 1), (277, 3, le16(1), 1), (284, 3, le16(1), 1),
            (339, 3, le16(3), 1),
        ]
        if tiled {
            tags += [(322, 4, le32(UInt32(bw)), 1), (323, 4, le32(UInt32(bh)), 1)]
        } else {
            tags += [(278, 4, le32(UInt32(bh)), 1)]
        }
        if let g = georeference {
            tags += [(33550, 12, g.scale.flatMap { le64($0.bitPattern) }, g.scale.count),
                     (33922, 12, g.tiepoint.flatMap { le64($0.bitPattern) }, g.tiepoint.count),
                     (34735, 3, g.keys.flatMap { le16($0) }, g.keys.count)]
        }
        return tiff(tags: tags, blocks: blocks, tiled: tiled)
    }

    private static func tiff(tags: [(UInt16, UInt16, [UInt8], Int)], blocks: [[UInt8]], tiled: Bool) -> [UInt8] {
        var data = [UInt8]()
        var offsets: [UInt32] = [], counts: [UInt32] = []
        for b in blocks {
            offsets.append(UInt32(8 + data.count))
            counts.append(UInt32(b.count))
            data += b
            if data.count % 2 == 1 { data.append(0) }
        }
        var all = tags
        all.append((tiled ? 324 : 273, 4, offsets.flatMap { le32($0) }, offsets.count))
        all.append((tiled ? 325 : 279, 4, counts.flatMap { le32($0) }, counts.count))
        all.sort { $0.0 < $1.0 }
        let ifdAt = 8 + data.count
        var extraAt = ifdAt + 2 + 12 * all.count + 4
        var ifd = le16(UInt16(all.count)), extra = [UInt8]()
        for (tag, type, bytes, count) in all {
            ifd += le16(tag) + le16(type) + le32(UInt32(count))
            if bytes.count <= 4 {
                ifd += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
            } else {
                ifd += le32(UInt32(extraAt))
                extra += bytes
                extraAt += bytes.count
            }
        }
        ifd += le32(0)
        return [0x49, 0x49, 42, 0] + le32(UInt32(ifdAt)) + data + ifd + extra
    }

    public static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    public static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    public static func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (8 * $0)) & 0xFF) } }
}

/// Copernicus's georeferencing of the cell (41, 2), `rows` × `columns` postings: pixel-is-point,
/// its first posting at (42 N, 2 E).
public func copernicus(rows: Int, columns: Int) -> (scale: [Double], tiepoint: [Double], keys: [UInt16]) {
    ([1 / Double(columns), 1 / Double(rows), 0], [0, 0, 0, 2, 42, 0], [1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 2, 2048, 0, 1, 4326])
}
