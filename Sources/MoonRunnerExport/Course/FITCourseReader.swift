import FoundationEssentials
import MoonRunnerCore

/// FIT courses (and activities) as Garmin Connect, Strava and gpsbabel write
/// them: every `record` with a position, in order; the name from the
/// `course` message; every `course_point` with a position (its type, name
/// and distance along the course) as a mark. The file's CRC is checked (a damaged transfer is
/// refused, not read in part); definitions with developer fields, both byte
/// orders and compressed-timestamp headers are understood; chained FIT
/// files are read one after the other.
enum FITCourseReader {
    private struct Field {
        var number: UInt8
        var size: Int
        var baseType: UInt8
    }

    private struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [Field]
        /// Bytes of developer fields after the fields.
        var developerBytes: Int
    }

    static func read(_ data: Data) throws(CourseFileError) -> Course {
        let bytes = [UInt8](data)
        var points: [CoursePoint] = []
        var marks: [CourseMark] = []
        var name = ""
        var start = 0
        var files = 0
        var records = 0
        while start < bytes.count {
            // Padding after the last file of a chain is not another file.
            if files > 0 && bytes[start...].allSatisfy({ $0 == 0 }) { break }
            let end = try checkFile(bytes, at: start)
            try readRecords(bytes, from: start + Int(bytes[start]), to: end, points: &points, marks: &marks,
                            name: &name, records: &records)
            start = end + 2
            files += 1
        }
        guard !points.isEmpty else {
            throw CourseFileError(records > 0
                ? "FIT: none of its \(records) records has a position (an activity recorded without GPS is not a course)"
                : "FIT: the file holds no records with positions")
        }
        return Course(name: name, points: points, marks: marks)
    }

    /// Checks the header and CRCs of the FIT file at `start`; returns where its data ends.
    private static func checkFile(_ b: [UInt8], at start: Int) throws(CourseFileError) -> Int {
        guard b.count - start >= 12 else { throw CourseFileError("FIT: the file is too short for a FIT header (\(b.count - start) bytes)") }
        let headerSize = Int(b[start])
        guard headerSize == 12 || headerSize == 14, b.count - start >= headerSize,
              Array(b[(start + 8)..<(start + 12)]) == Array(".FIT".utf8) else {
            throw CourseFileError("FIT: no FIT header at byte \(start) (expected a size of 12 or 14 and \".FIT\")")
        }
        let dataSize = Int(UInt32(b[start + 4]) | UInt32(b[start + 5]) << 8 | UInt32(b[start + 6]) << 16
            | UInt32(b[start + 7]) << 24)
        let end = start + headerSize + dataSize
        guard end + 2 <= b.count else {
            throw CourseFileError("FIT: the header announces \(dataSize) bytes of records but the file ends at byte \(b.count) (truncated)")
        }
        if headerSize == 14 {
            let stored = UInt16(b[start + 12]) | UInt16(b[start + 13]) << 8
            if stored != 0 && stored != FITCRC.checksum(b[start..<(start + 12)]) {
                throw CourseFileError("FIT: the header's CRC is wrong (damaged file)")
            }
        }
        let stored = UInt16(b[end]) | UInt16(b[end + 1]) << 8
        let computed = FITCRC.checksum(b[start..<end])
        guard stored == computed else {
            throw CourseFileError("FIT: the file's CRC is wrong (stored 0x\(stored.hex(width: 4, uppercase: true)), "
                                          + "computed 0x\(computed.hex(width: 4, uppercase: true))): the file is damaged")
        }
        return end
    }

    /// The messages of one file's data, `begin..<end`: its points and course name collected, its records counted.
    private static func readRecords(_ b: [UInt8], from begin: Int, to end: Int, points: inout [CoursePoint],
                                    marks: inout [CourseMark], name: inout String,
                                    records: inout Int) throws(CourseFileError) {
        var definitions = [Definition?](repeating: nil, count: 16)
        var i = begin
        while i < end {
            let header = b[i]
            i += 1
            if header & 0x80 == 0 && header & 0x40 != 0 {
                definitions[Int(header & 0x0F)] = try definition(b, header: header, at: &i, end: end)
                continue
            }
            // Data message (normal header, or compressed timestamp with a 2-bit local type).
            let local = header & 0x80 != 0 ? Int((header >> 5) & 0x03) : Int(header & 0x0F)
            guard let def = definitions[local] else {
                throw CourseFileError("FIT: a data message at byte \(i - 1) uses local type \(local), which was never defined")
            }
            let size = def.fields.reduce(0) { $0 + $1.size } + def.developerBytes
            try need(size, at: i, end: end)
            switch def.global {
            case 20:
                records += 1
                if let p = record(b, at: i, def) {
                    points.append(p)
                    guard points.count <= CourseFile.maxPoints else {
                        throw CourseFileError("FIT: more than \(CourseFile.maxPoints) points")
                    }
                }
            case 31 where name.isEmpty:
                name = courseName(b, at: i, def)
            case 32:
                if let m = coursePoint(b, at: i, def) {
                    marks.append(m)
                    guard marks.count <= CourseFile.maxPoints else {
                        throw CourseFileError("FIT: more than \(CourseFile.maxPoints) course points")
                    }
                }
            default:
                break
            }
            i += size
        }
    }

    /// A definition message from `i` on (past its header), leaving `i` after it.
    private static func definition(_ b: [UInt8], header: UInt8, at i: inout Int,
                                   end: Int) throws(CourseFileError) -> Definition {
        try need(5, at: i, end: end)
        let bigEndian = b[i + 1] == 1
        let global = bigEndian ? UInt16(b[i + 2]) << 8 | UInt16(b[i + 3]) : UInt16(b[i + 2]) | UInt16(b[i + 3]) << 8
        let count = Int(b[i + 4])
        i += 5
        try need(count * 3, at: i, end: end)
        var fields: [Field] = []
        fields.reserveCapacity(count)
        for k in 0..<count {
            fields.append(Field(number: b[i + 3 * k], size: Int(b[i + 3 * k + 1]), baseType: b[i + 3 * k + 2]))
        }
        i += count * 3
        var developerBytes = 0
        if header & 0x20 != 0 {
            try need(1, at: i, end: end)
            let devCount = Int(b[i])
            i += 1
            try need(devCount * 3, at: i, end: end)
            for k in 0..<devCount { developerBytes += Int(b[i + 3 * k + 1]) }
            i += devCount * 3
        }
        return Definition(global: global, bigEndian: bigEndian, fields: fields, developerBytes: developerBytes)
    }

    /// Refuses a message whose next `n` bytes from `i` run past the data's `end`.
    private static func need(_ n: Int, at i: Int, end: Int) throws(CourseFileError) {
        guard i + n <= end else { throw CourseFileError("FIT: a message runs past the end of the data at byte \(i)") }
    }

    /// A record's position (semicircles) and altitude, nil without a valid position.
    private static func record(_ b: [UInt8], at start: Int, _ def: Definition) -> CoursePoint? {
        var lat: Int32?, lon: Int32?
        var altitude = Double.nan, enhanced = Double.nan
        var o = start
        for f in def.fields {
            switch (f.number, f.size) {
            case (0, 4): lat = Int32(bitPattern: uint32(b, o, def.bigEndian))
            case (1, 4): lon = Int32(bitPattern: uint32(b, o, def.bigEndian))
            case (2, 2):
                let v = uint16(b, o, def.bigEndian)
                if v != 0xFFFF { altitude = Double(v) / 5 - 500 }
            case (78, 4):
                let v = uint32(b, o, def.bigEndian)
                if v != 0xFFFF_FFFF { enhanced = Double(v) / 5 - 500 }
            default:
                break
            }
            o += f.size
        }
        guard let p = position(lat, lon) else { return nil }
        return CoursePoint(latitude: p.latitude, longitude: p.longitude,
                           elevation: enhanced.isFinite ? enhanced : altitude)
    }

    /// A position from FIT's semicircles; nil when either is absent or
    /// invalid (0x7FFFFFFF), out of range, or 0,0 (a device's unset position).
    private static func position(_ lat: Int32?, _ lon: Int32?) -> GeoPoint? {
        guard let la = lat, let lo = lon, la != Int32.max, lo != Int32.max else { return nil }
        let degrees = 180.0 / 2_147_483_648.0
        let p = GeoPoint(latitude: Double(la) * degrees, longitude: Double(lo) * degrees)
        guard p.isValid, abs(p.latitude) > 1e-7 || abs(p.longitude) > 1e-7 else { return nil }
        return p
    }

    /// The `course` message's name (field 5, a NUL-terminated string).
    private static func courseName(_ b: [UInt8], at start: Int, _ def: Definition) -> String {
        var o = start
        for f in def.fields {
            if f.number == 5 { return string(b[o..<(o + f.size)]) }
            o += f.size
        }
        return ""
    }

    /// A `course_point` (global 32): position (fields 2, 3, semicircles),
    /// distance along the course (4, cm), type (5) and name (6); nil without
    /// a valid position.
    private static func coursePoint(_ b: [UInt8], at start: Int, _ def: Definition) -> CourseMark? {
        var lat: Int32?, lon: Int32?
        var distance: Double?
        var type: UInt8 = 0
        var name = ""
        var o = start
        for f in def.fields {
            switch (f.number, f.size) {
            case (2, 4): lat = Int32(bitPattern: uint32(b, o, def.bigEndian))
            case (3, 4): lon = Int32(bitPattern: uint32(b, o, def.bigEndian))
            case (4, 4):
                let v = uint32(b, o, def.bigEndian)
                if v != 0xFFFF_FFFF { distance = Double(v) / 100 }
            case (5, 1): if b[o] != 0xFF { type = b[o] }
            case (6, _): name = string(b[o..<(o + f.size)])
            default: break
            }
            o += f.size
        }
        guard let p = position(lat, lon) else { return nil }
        let trimmed = name.trimmingSpacesAndNewlines()
        return CourseMark(latitude: p.latitude, longitude: p.longitude, kind: CueKind(fit: type),
                          name: trimmed.isEmpty ? nil : trimmed, distance: distance)
    }

    /// A NUL-terminated UTF-8 string field (a multi-byte character cut by
    /// the field's size is replaced, not a reason to refuse the file).
    private static func string(_ raw: ArraySlice<UInt8>) -> String {
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func uint16(_ b: [UInt8], _ o: Int, _ big: Bool) -> UInt16 {
        big ? UInt16(b[o]) << 8 | UInt16(b[o + 1]) : UInt16(b[o]) | UInt16(b[o + 1]) << 8
    }

    private static func uint32(_ b: [UInt8], _ o: Int, _ big: Bool) -> UInt32 {
        big ? UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
            : UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
    }
}
