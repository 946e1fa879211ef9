import CZlib
import Foundation

/// A journal record's payload: the raw size (4 bytes, little-endian), then a
/// zlib stream, deflated against the previous record's raw bytes when there is
/// one in the same generation (zlib's preset dictionary).
///
/// Why the dictionary: consecutive commits repeat most of the snapshot (keys,
/// pauses, navigation), so a record deflated against the one before takes
/// about 300 bytes instead of 650, and fits the single 512-byte block a
/// commit then writes. The stream names its dictionary (zlib's DICTID, an
/// Adler-32), so a record deflated without one reads alone, and one read
/// against the wrong bytes fails instead of decoding to something else.
enum JournalCodec {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func deflate(_ raw: Data, dictionary: Data? = nil) throws -> Data {
        var stream = z_stream()
        guard deflateInit_(&stream, 9, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "deflateInit failed")
        }
        defer { deflateEnd(&stream) }
        if let dictionary, !dictionary.isEmpty {
            let rc = dictionary.withUnsafeBytes { d in
                deflateSetDictionary(&stream, d.bindMemory(to: Bytef.self).baseAddress, uInt(d.count))
            }
            guard rc == Z_OK else { throw Failure(description: "deflateSetDictionary failed (\(rc))") }
        }
        let bound = Int(deflateBound(&stream, uLong(raw.count))) + 64
        var out = [UInt8](repeating: 0, count: bound + 4)
        let rc = raw.withUnsafeBytes { src in
            out.withUnsafeMutableBufferPointer { dst in
                stream.next_in = UnsafeMutablePointer(mutating: src.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(raw.count)
                stream.next_out = dst.baseAddress.map { $0 + 4 }
                stream.avail_out = uInt(bound)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else { throw Failure(description: "deflate failed (\(rc))") }
        let n = UInt32(raw.count)
        out[0] = UInt8(n & 0xFF)
        out[1] = UInt8(n >> 8 & 0xFF)
        out[2] = UInt8(n >> 16 & 0xFF)
        out[3] = UInt8(n >> 24)
        return Data(out[0..<(Int(stream.total_out) + 4)])
    }

    static func inflate(_ data: Data, dictionary: Data? = nil) throws -> Data {
        let b = [UInt8](data)
        guard b.count >= 4 else { throw Failure(description: "a journal record too short to hold its size") }
        let n = Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16 | Int(b[3]) << 24
        guard n <= JournalFormat.maxRecord * 16 else {
            throw Failure(description: "a journal record claims \(n) bytes")
        }
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "inflateInit failed")
        }
        defer { inflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: max(n, 1))
        let rc = b.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                stream.next_in = UnsafeMutablePointer(mutating: src.baseAddress.map { $0 + 4 })
                stream.avail_in = uInt(b.count - 4)
                stream.next_out = dst.baseAddress
                stream.avail_out = uInt(n)
                var rc = CZlib.inflate(&stream, Z_FINISH)
                if rc == Z_NEED_DICT, let dictionary {
                    rc = dictionary.withUnsafeBytes { d in
                        inflateSetDictionary(&stream, d.bindMemory(to: Bytef.self).baseAddress, uInt(d.count))
                    }
                    if rc == Z_OK { rc = CZlib.inflate(&stream, Z_FINISH) }
                }
                return rc
            }
        }
        guard rc == Z_STREAM_END, Int(stream.total_out) == n else {
            throw Failure(description: "inflate failed (\(rc))")
        }
        return Data(out[0..<n])
    }
}
