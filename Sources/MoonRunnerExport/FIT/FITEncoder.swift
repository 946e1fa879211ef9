import FoundationEssentials

/// FIT base types used by MoonRunner (FIT protocol, "base type" byte: bit 7
/// set for multi-byte types whose byte order matters).
enum FITBaseType: UInt8 {
    case enumeration = 0x00
    case uint8 = 0x02
    case uint16 = 0x84
    case sint32 = 0x85
    case uint32 = 0x86
    case uint32z = 0x8C
    /// UTF-8, NUL-terminated; a field's size is its byte count.
    case string = 0x07
    /// Raw bytes (an array field: a developer's application id).
    case byte = 0x0D

    var size: UInt8 {
        switch self {
        case .enumeration, .uint8, .string, .byte: return 1
        case .uint16: return 2
        case .sint32, .uint32, .uint32z: return 4
        }
    }
}

/// One field of a definition message.
struct FITFieldDefinition {
    var number: UInt8
    var type: FITBaseType
    /// Values in the field (an array field holds several).
    var count: UInt8 = 1
}

/// One developer field of a definition message: the field_description's
/// number, its size in bytes and the developer_data_id's index.
struct FITDeveloperFieldDefinition {
    var number: UInt8
    var size: UInt8
    var developerIndex: UInt8 = 0
}

/// A small FIT encoder: definition and data messages with normal record
/// headers, little-endian, a 14-byte file header with its CRC and the
/// trailing file CRC. Values are appended in the order of the definition;
/// `invalid` values mark a field as absent, as FIT requires.
struct FITEncoder {
    private(set) var records: [UInt8] = []

    init(capacity: Int) {
        records.reserveCapacity(capacity)
    }

    /// Defines local message `local` (0...15) as global message `global`; developer fields, when
    /// there are any, follow the profile's in each data message.
    mutating func define(local: UInt8, global: UInt16, fields: [FITFieldDefinition],
                         developerFields: [FITDeveloperFieldDefinition] = []) {
        records.append(0x40 | (developerFields.isEmpty ? 0 : 0x20) | (local & 0x0F))
        records.append(0)            // reserved
        records.append(0)            // architecture: little endian
        append16(global)
        records.append(UInt8(fields.count))
        for f in fields {
            records.append(f.number)
            records.append(f.type.size * f.count)
            records.append(f.type.rawValue)
        }
        guard !developerFields.isEmpty else { return }
        records.append(UInt8(developerFields.count))
        for f in developerFields {
            records += [f.number, f.size, f.developerIndex]
        }
    }

    /// Starts a data message of local type `local`; its field values follow.
    mutating func begin(local: UInt8) {
        records.append(local & 0x0F)
    }

    mutating func enumeration(_ v: UInt8) { records.append(v) }
    mutating func uint8(_ v: UInt8) { records.append(v) }
    mutating func uint16(_ v: UInt16) { append16(v) }
    mutating func uint32(_ v: UInt32) { append32(v) }
    mutating func sint32(_ v: Int32) { append32(UInt32(bitPattern: v)) }
    mutating func bytes(_ v: [UInt8]) { records += v }
    /// A string field of `size` bytes: the text's UTF-8 cut at a character, NUL-padded.
    mutating func string(_ text: String, size: UInt8) {
        var bytes: [UInt8] = []
        for c in text {
            let utf8 = Array(String(c).utf8)
            guard bytes.count + utf8.count < Int(size) else { break }
            bytes += utf8
        }
        records += bytes + [UInt8](repeating: 0, count: Int(size) - bytes.count)
    }

    static let invalidUInt8: UInt8 = 0xFF
    static let invalidUInt16: UInt16 = 0xFFFF
    static let invalidUInt32: UInt32 = 0xFFFF_FFFF
    static let invalidSInt32: Int32 = 0x7FFF_FFFF

    private mutating func append16(_ v: UInt16) {
        records.append(UInt8(v & 0xFF))
        records.append(UInt8(v >> 8))
    }

    private mutating func append32(_ v: UInt32) {
        records.append(UInt8(v & 0xFF))
        records.append(UInt8((v >> 8) & 0xFF))
        records.append(UInt8((v >> 16) & 0xFF))
        records.append(UInt8(v >> 24))
    }

    /// The complete file: header (14 bytes, protocol 2.0, with header CRC),
    /// the records, and the CRC of everything before it.
    func file(profileVersion: UInt16) -> Data {
        Self.file(records: records, profileVersion: profileVersion)
    }

    /// `records` framed as a FIT file: header with its CRC, then the file CRC.
    static func file(records: [UInt8], profileVersion: UInt16) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(records.count + 16)
        let size = UInt32(records.count)
        out += [14, 0x20, UInt8(profileVersion & 0xFF), UInt8(profileVersion >> 8),
                UInt8(size & 0xFF), UInt8((size >> 8) & 0xFF), UInt8((size >> 16) & 0xFF), UInt8(size >> 24)]
        out += Array(".FIT".utf8)
        let headerCRC = FITCRC.checksum(out)
        out += [UInt8(headerCRC & 0xFF), UInt8(headerCRC >> 8)]
        out += records
        let fileCRC = FITCRC.checksum(out)
        out += [UInt8(fileCRC & 0xFF), UInt8(fileCRC >> 8)]
        return Data(out)
    }
}

/// FIT's CRC-16: the reflected polynomial 0xA001 (x¹⁶ + x¹⁵ + x² + 1),
/// initial value 0, no final xor, table-driven a byte at a time.
enum FITCRC {
    private static let table: [UInt16] = (0..<256).map { n in
        var c = UInt16(n)
        for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xA001 : c >> 1 }
        return c
    }

    static func checksum<Bytes: Sequence>(_ bytes: Bytes, initial: UInt16 = 0) -> UInt16
    where Bytes.Element == UInt8 {
        var crc = initial
        for b in bytes {
            crc = (crc >> 8) ^ table[Int((crc ^ UInt16(b)) & 0xFF)]
        }
        return crc
    }
}
