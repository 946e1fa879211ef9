import CZlib
import Foundation

/// The journal's bytes on disk, apart from how they are written.
///
/// Format 2 (`MRJ2`): the file is preallocated (zeros written once) and never
/// shrinks, so that a commit overwrites blocks already allocated. Its first 12
/// bytes are a header (`magic, generation, CRC-32`); records start at
/// `dataStart`, each `magic, length, CRC-32, generation, seq, payload`, the
/// checksum covering generation, seq and payload, and each starts on a
/// `recordAlign` boundary: a commit of up to 512 bytes writes one 512-byte
/// block and never rewrites the blocks of the records before it. Emptying the journal only
/// writes a header with the next generation: records left behind by earlier
/// generations stay in the file, and reading stops at the first record that is
/// short, has another magic, a wrong checksum, another generation or a number
/// that does not follow the one before. A record torn by a power cut is
/// dropped whole; the ones before it are kept.
///
/// Format 1 (`MRJ1`, records `magic, length, CRC-32, payload` from offset 0,
/// emptied by truncation) is still read: a journal left by an older daemon is
/// taken in at start, then rewritten as format 2.
enum JournalFormat {
    static let fileMagic: UInt32 = 0x324A_524D  // "MRJ2", little-endian
    static let recordMagic: UInt32 = 0x524A_524D  // "MRJR"
    static let v1Magic: UInt32 = 0x314A_524D  // "MRJ1"
    static let fileHeaderSize = 12
    static let recordHeaderSize = 24
    static let v1HeaderSize = 12
    /// Where records start: a multiple of any direct I/O alignment up to 4 KiB,
    /// so the same file reads the same on any device.
    static let dataStart = 4096
    /// Records start at multiples of this (the usual logical block).
    static let recordAlign = 512
    static let maxRecord = 64 << 20

    struct Record: Equatable {
        var seq: UInt64
        var payload: Data
    }

    /// What a file holds: its whole records and where they end.
    struct Contents {
        var records: [Record] = []
        /// Offset just past the last whole record.
        var end = 0
        /// The header's generation; nil when the file is not (or not wholly) format 2.
        var generation: UInt32?
        var isV1 = false
    }

    static func parse(_ b: [UInt8]) -> Contents {
        guard b.count >= 4 else { return Contents() }
        switch u32(b, 0) {
        case v1Magic: return parseV1(b)
        case fileMagic: return parseV2(b)
        default: return Contents()
        }
    }

    private static func parseV2(_ b: [UInt8]) -> Contents {
        var out = Contents()
        guard b.count >= fileHeaderSize, crc32(b, 0, 8) == u32(b, 8) else { return out }
        let generation = u32(b, 4)
        out.generation = generation
        out.end = dataStart
        var at = dataStart
        var last: UInt64?
        while at + recordHeaderSize <= b.count {
            let length = Int(u32(b, at + 4))
            let magicOK: Bool = u32(b, at) == recordMagic
            guard magicOK, length <= maxRecord, at + recordHeaderSize + length <= b.count else { break }
            let covered = recordHeaderSize - 12 + length
            guard crc32(b, at + 12, covered) == u32(b, at + 8), u32(b, at + 12) == generation else { break }
            let seq = u64(b, at + 16)
            if let last, seq != last &+ 1 { break }
            let start = at + recordHeaderSize
            out.records.append(Record(seq: seq, payload: Data(b[start..<(start + length)])))
            last = seq
            at = aligned(start + length)
        }
        out.end = at
        return out
    }

    /// `offset` rounded up to the next record boundary.
    static func aligned(_ offset: Int) -> Int {
        (offset + recordAlign - 1) / recordAlign * recordAlign
    }

    private static func parseV1(_ b: [UInt8]) -> Contents {
        var out = Contents()
        out.isV1 = true
        var at = 0
        while at + v1HeaderSize <= b.count {
            let magic = u32(b, at), length = Int(u32(b, at + 4)), crc = u32(b, at + 8)
            guard magic == v1Magic, length <= maxRecord, at + v1HeaderSize + length <= b.count else { break }
            let start = at + v1HeaderSize
            guard crc32(b, start, length) == crc else { break }
            out.records.append(Record(seq: 0, payload: Data(b[start..<(start + length)])))
            at = start + length
        }
        out.end = at
        return out
    }

    static func header(generation: UInt32) -> [UInt8] {
        var h = [UInt8]()
        put(&h, fileMagic)
        put(&h, generation)
        put(&h, crc32(h, 0, 8))
        return h
    }

    static func record(_ payload: Data, seq: UInt64, generation: UInt32) -> [UInt8] {
        var covered = [UInt8]()
        covered.reserveCapacity(12 + payload.count)
        put(&covered, generation)
        put(&covered, UInt32(truncatingIfNeeded: seq))
        put(&covered, UInt32(truncatingIfNeeded: seq >> 32))
        covered += payload
        var r = [UInt8]()
        r.reserveCapacity(12 + covered.count)
        put(&r, recordMagic)
        put(&r, UInt32(payload.count))
        put(&r, crc32(covered, 0, covered.count))
        return r + covered
    }

    /// A record in format 1 (tests: a journal an older daemon left).
    static func v1Record(_ payload: Data) -> [UInt8] {
        let body = [UInt8](payload)
        var r = [UInt8]()
        put(&r, v1Magic)
        put(&r, UInt32(body.count))
        put(&r, crc32(body, 0, body.count))
        return r + body
    }

    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        let b0 = UInt32(b[i]), b1 = UInt32(b[i + 1]) << 8
        let b2 = UInt32(b[i + 2]) << 16, b3 = UInt32(b[i + 3]) << 24
        return b0 | b1 | b2 | b3
    }

    static func u64(_ b: [UInt8], _ i: Int) -> UInt64 {
        UInt64(u32(b, i)) | UInt64(u32(b, i + 4)) << 32
    }

    static func put(_ b: inout [UInt8], _ v: UInt32) {
        b += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }

    static func crc32(_ b: [UInt8], _ start: Int, _ count: Int) -> UInt32 {
        b.withUnsafeBufferPointer { p in
            UInt32(CZlib.crc32(0, p.baseAddress.map { $0 + start }, uInt(count)))
        }
    }
}
