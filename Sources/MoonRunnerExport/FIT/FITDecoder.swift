/// Why a FIT file cannot be read: what is wrong and at which byte. The
/// readers (courses, workouts) pass the message on in their own error.
struct FITReadError: Error, Sendable, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}

/// The encoder's mirror image, shared by every FIT reader: it checks each
/// file's header and CRC (a damaged transfer is refused, not read in part),
/// understands definitions with developer fields, both byte orders and
/// compressed-timestamp headers, reads chained files one after the other,
/// and hands out the data messages one at a time (`next()`), each with its
/// fields found by number.
struct FITDecoder {
    struct Field {
        var number: UInt8
        var size: Int
        var baseType: UInt8
        /// Bytes from the start of the message's fields.
        var offset: Int
    }

    struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [Field]
        /// Bytes of the fields and of the developer fields after them.
        var size: Int
    }

    private let b: [UInt8]
    /// Where the current file starts and where its data ends (nil between files).
    private var fileStart = 0
    private var dataEnd: Int?
    private var i = 0
    private var definitions = [Definition?](repeating: nil, count: 16)
    /// Files begun so far.
    private(set) var files = 0

    init(_ bytes: [UInt8]) {
        b = bytes
    }

    /// The next data message; nil after the last file.
    mutating func next() throws(FITReadError) -> FITMessage? {
        while true {
            if dataEnd == nil {
                // Padding after the last file of a chain is not another file.
                guard fileStart < b.count, files == 0 || !b[fileStart...].allSatisfy({ $0 == 0 }) else { return nil }
                dataEnd = try Self.checkFile(b, at: fileStart)
                i = fileStart + Int(b[fileStart])
                definitions = [Definition?](repeating: nil, count: 16)
                files += 1
            }
            guard let end = dataEnd else { return nil }
            guard i < end else {
                fileStart = end + 2
                dataEnd = nil
                continue
            }
            let header = b[i]
            i += 1
            if header & 0x80 == 0 && header & 0x40 != 0 {
                definitions[Int(header & 0x0F)] = try definition(header: header, end: end)
                continue
            }
            // Data message (normal header, or compressed timestamp with a 2-bit local type).
            let local = header & 0x80 != 0 ? Int((header >> 5) & 0x03) : Int(header & 0x0F)
            guard let def = definitions[local] else {
                throw FITReadError("FIT: a data message at byte \(i - 1) uses local type \(local), which was never defined")
            }
            try Self.need(def.size, at: i, end: end)
            let message = FITMessage(bytes: b, start: i, definition: def)
            i += def.size
            return message
        }
    }

    /// Checks the header and CRCs of the FIT file at `start`; returns where its data ends.
    private static func checkFile(_ b: [UInt8], at start: Int) throws(FITReadError) -> Int {
        guard b.count - start >= 12 else { throw FITReadError("FIT: the file is too short for a FIT header (\(b.count - start) bytes)") }
        let headerSize = Int(b[start])
        guard headerSize == 12 || headerSize == 14, b.count - start >= headerSize,
              Array(b[(start + 8)..<(start + 12)]) == Array(".FIT".utf8) else {
            throw FITReadError("FIT: no FIT header at byte \(start) (expected a size of 12 or 14 and \".FIT\")")
        }
        let dataSize = Int(FITMessage.uint32(b, start + 4, false))
        let end = start + headerSize + dataSize
        guard end + 2 <= b.count else {
            throw FITReadError("FIT: the header announces \(dataSize) bytes of records but the file ends at byte \(b.count) (truncated)")
        }
        if headerSize == 14 {
            let stored = FITMessage.uint16(b, start + 12, false)
            if stored != 0 && stored != FITCRC.checksum(b[start..<(start + 12)]) {
                throw FITReadError("FIT: the header's CRC is wrong (damaged file)")
            }
        }
        let stored = FITMessage.uint16(b, end, false)
        let computed = FITCRC.checksum(b[start..<end])
        guard stored == computed else {
            throw FITReadError("FIT: the file's CRC is wrong (stored 0x\(stored.hex(width: 4, uppercase: true)), "
                                  + "computed 0x\(computed.hex(width: 4, uppercase: true))): the file is damaged")
        }
        return end
    }

    /// A definition message from `i` on (past its header), leaving `i` after it.
    private mutating func definition(header: UInt8, end: Int) throws(FITReadError) -> Definition {
        try Self.need(5, at: i, end: end)
        let bigEndian = b[i + 1] == 1
        let global = FITMessage.uint16(b, i + 2, bigEndian)
        let count = Int(b[i + 4])
        i += 5
        try Self.need(count * 3, at: i, end: end)
        var fields: [Field] = []
        fields.reserveCapacity(count)
        var offset = 0
        for k in 0..<count {
            let size = Int(b[i + 3 * k + 1])
            fields.append(Field(number: b[i + 3 * k], size: size, baseType: b[i + 3 * k + 2], offset: offset))
            offset += size
        }
        i += count * 3
        if header & 0x20 != 0 {
            try Self.need(1, at: i, end: end)
            let devCount = Int(b[i])
            i += 1
            try Self.need(devCount * 3, at: i, end: end)
            for k in 0..<devCount { offset += Int(b[i + 3 * k + 1]) }
            i += devCount * 3
        }
        return Definition(global: global, bigEndian: bigEndian, fields: fields, size: offset)
    }

    /// Refuses a message whose next `n` bytes from `i` run past the data's `end`.
    private static func need(_ n: Int, at i: Int, end: Int) throws(FITReadError) {
        guard i + n <= end else { throw FITReadError("FIT: a message runs past the end of the data at byte \(i)") }
    }
}

/// One data message: its global number and its fields by number. A value
/// that is absent, or FIT's invalid value for its base type, is nil.
struct FITMessage {
    private let b: [UInt8]
    private let start: Int
    private let definition: FITDecoder.Definition

    init(bytes: [UInt8], start: Int, definition: FITDecoder.Definition) {
        b = bytes
        self.start = start
        self.definition = definition
    }

    var global: UInt16 { definition.global }

    private func field(_ number: UInt8) -> FITDecoder.Field? {
        definition.fields.first { $0.number == number }
    }

    /// An unsigned (or enum, or z) integer field; nil when absent or invalid.
    func uint(_ number: UInt8) -> UInt64? {
        guard let f = field(number) else { return nil }
        let o = start + f.offset, big = definition.bigEndian
        let v: UInt64
        switch f.size {
        case 1: v = UInt64(b[o])
        case 2: v = UInt64(Self.uint16(b, o, big))
        case 4: v = UInt64(Self.uint32(b, o, big))
        case 8: v = UInt64(Self.uint32(b, big ? o + 4 : o, big)) | UInt64(Self.uint32(b, big ? o : o + 4, big)) << 32
        default: return nil
        }
        let allOnes = f.size == 8 ? UInt64.max : (UInt64(1) << (8 * UInt64(f.size))) - 1
        // Base types ending in z (0x0A, 0x8B, 0x8C, 0x90) are invalid at 0, the others at all ones.
        let zeroInvalid = [0x0A, 0x8B, 0x8C, 0x90].contains(f.baseType)
        return zeroInvalid ? (v == 0 ? nil : v) : (v == allOnes ? nil : v)
    }

    /// A signed 32-bit field (sint32, invalid 0x7FFFFFFF); nil when absent or invalid.
    func sint32(_ number: UInt8) -> Int32? {
        guard let f = field(number), f.size == 4 else { return nil }
        let v = Int32(bitPattern: Self.uint32(b, start + f.offset, definition.bigEndian))
        return v == Int32.max ? nil : v
    }

    /// A NUL-terminated UTF-8 string field, trimmed; nil when absent or empty
    /// (a multi-byte character cut by the field's size is replaced, not a
    /// reason to refuse the file).
    func string(_ number: UInt8) -> String? {
        guard let f = field(number) else { return nil }
        let raw = b[(start + f.offset)..<(start + f.offset + f.size)]
        let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self).trimmingSpacesAndNewlines()
        return text.isEmpty ? nil : text
    }

    static func uint16(_ b: [UInt8], _ o: Int, _ big: Bool) -> UInt16 {
        big ? UInt16(b[o]) << 8 | UInt16(b[o + 1]) : UInt16(b[o]) | UInt16(b[o + 1]) << 8
    }

    static func uint32(_ b: [UInt8], _ o: Int, _ big: Bool) -> UInt32 {
        big ? UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
            : UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
    }
}
