import CZlib
import Foundation

/// gzip (RFC 1952) through the system's zlib: the pages and static files go
/// out compressed to a browser that accepts it (a phone on a hotspot's
/// weak signal loads the live page in a third of the bytes).
enum Gzip {
    /// The gzip of `input` at `level` (6: zlib's default, a fraction of a
    /// millisecond for a page); nil only if zlib fails.
    static func compress(_ input: [UInt8], level: Int32 = 6) -> [UInt8]? {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        var input = input
        let produced: Int? = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = uInt(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = uInt(outBuf.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                return outBuf.count - Int(stream.avail_out)
            }
        }
        guard let produced else { return nil }
        return Array(output.prefix(produced))
    }

    /// True when an `Accept-Encoding` header takes gzip (and does not refuse it with q=0).
    static func accepted(_ header: String?) -> Bool {
        guard let header else { return false }
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "gzip" || parts.first == "*" else { continue }
            return !parts.dropFirst().contains { $0.hasPrefix("q=") && (Double($0.dropFirst(2)) ?? 1) == 0 }
        }
        return false
    }
}
