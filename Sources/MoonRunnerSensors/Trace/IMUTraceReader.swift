import CZlib
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerSystem

/// IMU trace errors are trace-file errors (file, line, what was expected).
public typealias IMUTraceError = TraceFileError

/// Streaming reader for IMU CSV traces (docs/usage.md): header `t,ax,ay,az[,gx,gy,gz]`
/// in g and rad/s, columns found by name, extra columns ignored, plain or gzip
/// (zlib detects gzip by its magic bytes, so the file name does not matter).
///
/// Rows are parsed straight from a large byte buffer by a hand-written number parser,
/// because `String` splitting and `Double(String)` per field cost ~10× more and a
/// 10-hour trace has millions of rows. Blank lines and `#` lines are skipped; any
/// other malformed row is an error naming its line, so a damaged trace is never
/// mistaken for a quiet one. An empty gyro field or `nan` reads as NaN (no gyro for
/// that row); accelerometer and time fields must be finite.
///
/// Owns the zlib handle and the buffer; not `Sendable`: use it on one thread.
public final class IMUTraceReader {
    public let path: String
    /// True when the header has all three gyro columns.
    public private(set) var hasGyro: Bool
    /// Column names as read from the header (trimmed).
    public private(set) var columns: [String]

    private let file: gzFile
    private let buffer: UnsafeMutableRawBufferPointer
    /// Valid bytes are `start..<end` in `buffer`.
    private var start = 0
    private var end = 0
    private var atEOF = false
    /// Line number of the line that the next `nextLine()` returns (1-based).
    private var lineNumber = 0
    /// For each CSV column: which IMUSample field it feeds (0 = t … 6 = gz) or -1.
    private var slotOfColumn: [Int8]
    /// Number of leading columns a row must have to fill every required slot.
    private var requiredColumns: Int
    private var closed = false

    /// Buffer size for reading a whole trace (`analyze`): large reads keep zlib and the kernel out of the profile.
    public static let throughputBufferSize = 1 << 20
    /// Buffer size for a replay in the daemon (at most 1000 rows a second): 64 KiB is some 1500 rows.
    /// zlib keeps three times the size besides, so the 1 MiB one stayed resident as 4 MiB of a
    /// replaying daemon's memory (measured with `footprint.py`).
    public static let replayBufferSize = 1 << 16

    /// Opens `path` (plain or gzip) and reads the header. `bufferSize` bounds the longest line.
    public init(path: String, bufferSize: Int = IMUTraceReader.throughputBufferSize) throws {
        self.path = path
        guard let f = gzopen(path, "rb") else {
            let code = errno
            throw IMUTraceError(path: path, line: 0,
                                message: "cannot open: \(errnoText(code))")
        }
        _ = gzbuffer(f, UInt32(bufferSize))
        file = f
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize,
                                                        alignment: 16)
        // Until the header is known, no slots; initialise lets before using self's methods.
        slotOfColumn = []
        columns = []
        requiredColumns = 0
        hasGyro = false
        let header: Header
        do {
            guard let line = try nextLine(skippingComments: true) else {
                throw IMUTraceError(path: path, line: 0, message: "empty file: no header line")
            }
            header = try Header(line, path: path, lineNumber: lineNumber)
        } catch {
            gzclose(f)
            buffer.deallocate()
            closed = true
            throw error
        }
        slotOfColumn = header.slots
        columns = header.columns
        requiredColumns = header.required
        hasGyro = header.hasGyro
    }

    /// What the header line says: the columns, which sample field each feeds, and how many a row needs.
    private struct Header {
        static let names = ["t", "ax", "ay", "az", "gx", "gy", "gz"]
        var columns: [String]
        var slots: [Int8]
        var required: Int
        var hasGyro: Bool

        init(_ line: UnsafeRawBufferPointer, path: String, lineNumber: Int) throws {
            let names = Self.names
            columns = Self.split(line)
            slots = [Int8](repeating: -1, count: columns.count)
            var found = [Int](repeating: -1, count: names.count)
            for (col, raw) in columns.enumerated() {
                let name = raw.lowercased()
                if let slot = names.firstIndex(of: name) {
                    if found[slot] >= 0 {
                        throw IMUTraceError(path: path, line: lineNumber,
                                            message: "duplicate column '\(name)' in header")
                    }
                    found[slot] = col
                    slots[col] = Int8(slot)
                }
            }
            for slot in 0..<4 where found[slot] < 0 {
                throw IMUTraceError(path: path, line: lineNumber,
                                    message: "header lacks column '\(names[slot])' (need t,ax,ay,az[,gx,gy,gz])")
            }
            let gyroFound = found[4...6].filter { $0 >= 0 }.count
            if gyroFound != 0 && gyroFound != 3 {
                throw IMUTraceError(path: path, line: lineNumber,
                                    message: "header has only some of gx,gy,gz")
            }
            hasGyro = gyroFound == 3
            required = (hasGyro ? found : Array(found[0..<4])).max().map { $0 + 1 } ?? 4
        }

        /// The header's names, trimmed of spaces and quotes (and a byte-order mark).
        private static func split(_ line: UnsafeRawBufferPointer) -> [String] {
            var text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
            return text.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingScalars(where: { " \t\"'".unicodeScalars.contains($0) })
            }
        }
    }

    deinit {
        if !closed {
            gzclose(file)
            buffer.deallocate()
        }
    }

    /// The next sample, or nil at the end of the file.
    public func next() throws -> IMUSample? {
        while let line = try nextLine(skippingComments: true) {
            if line.count == 0 { continue }
            return try parseRow(line)
        }
        return nil
    }

    /// Calls `body` for every remaining row, in file order.
    public func forEach(_ body: (IMUSample) throws -> Void) throws {
        while let sample = try next() {
            try body(sample)
        }
    }

    /// Reads a whole trace into memory.
    public static func readAll(path: String) throws -> [IMUSample] {
        let reader = try IMUTraceReader(path: path)
        var out: [IMUSample] = []
        out.reserveCapacity(1 << 14)
        try reader.forEach { out.append($0) }
        return out
    }

    // MARK: - Lines

    /// The next line without its terminator (and without a trailing `\r`), valid until the
    /// next call; blank and `#` lines are returned as empty when skipping comments.
    private func nextLine(skippingComments: Bool) throws -> UnsafeRawBufferPointer? {
        while true {
            let base = buffer.baseAddress.unsafelyUnwrapped
            if start < end {
                let avail = end - start
                if let nl = memchr(base + start, 0x0A, avail) {
                    let lineEnd = base.distance(to: UnsafeMutableRawPointer(nl))
                    let line = trimmedLine(base, start, lineEnd)
                    start = lineEnd + 1
                    lineNumber += 1
                    return filtered(line, skippingComments)
                }
            }
            if atEOF {
                guard start < end else { return nil }
                // Last line without a newline.
                let line = trimmedLine(base, start, end)
                start = end
                lineNumber += 1
                return filtered(line, skippingComments)
            }
            try refill()
        }
    }

    private func trimmedLine(_ base: UnsafeMutableRawPointer, _ from: Int, _ to: Int) -> UnsafeRawBufferPointer {
        var stop = to
        if stop > from && base.load(fromByteOffset: stop - 1, as: UInt8.self) == 0x0D { stop -= 1 }
        return UnsafeRawBufferPointer(start: base + from, count: stop - from)
    }

    private func filtered(_ line: UnsafeRawBufferPointer, _ skippingComments: Bool) -> UnsafeRawBufferPointer {
        guard skippingComments else { return line }
        var i = 0
        while i < line.count, line[i] == 0x20 || line[i] == 0x09 { i += 1 }
        if i == line.count || line[i] == UInt8(ascii: "#") {
            return UnsafeRawBufferPointer(start: line.baseAddress, count: 0)
        }
        return line
    }

    /// Moves the unread tail to the front and fills the rest of the buffer from the file.
    private func refill() throws {
        let base = buffer.baseAddress.unsafelyUnwrapped
        let tail = end - start
        if tail > 0 && start > 0 { memmove(base, base + start, tail) }
        start = 0
        end = tail
        let room = buffer.count - end
        guard room > 0 else {
            throw IMUTraceError(path: path, line: lineNumber + 1,
                                message: "line longer than \(buffer.count) bytes")
        }
        let n = gzread(file, base + end, UInt32(room))
        if n < 0 {
            var code: Int32 = 0
            let msg = gzerror(file, &code).map { String(cString: $0) } ?? "read error"
            throw IMUTraceError(path: path, line: lineNumber + 1, message: "read failed: \(msg)")
        }
        if n == 0 {
            // gzread returns 0 at EOF, and also on a truncated gzip stream: tell them apart.
            var code: Int32 = 0
            let msg = gzerror(file, &code)
            if code != Z_OK && code != Z_BUF_ERROR {
                throw IMUTraceError(path: path, line: lineNumber + 1,
                                    message: "read failed: \(msg.map { String(cString: $0) } ?? "zlib error")")
            }
            if code == Z_BUF_ERROR {
                throw IMUTraceError(path: path, line: lineNumber + 1,
                                    message: "truncated gzip stream")
            }
            atEOF = true
        }
        end += Int(n)
    }

    // MARK: - Rows

    private func parseRow(_ line: UnsafeRawBufferPointer) throws -> IMUSample {
        var v = (Double.nan, Double.nan, Double.nan, Double.nan, Double.nan, Double.nan, Double.nan)
        let bytes = line.bindMemory(to: UInt8.self)
        let count = bytes.count
        var pos = 0
        var col = 0
        let slots = slotOfColumn
        while col < slots.count {
            // Field is pos..<fieldEnd.
            var fieldEnd = pos
            while fieldEnd < count && bytes[fieldEnd] != 0x2C { fieldEnd += 1 }
            let slot = slots[col]
            if slot >= 0 {
                guard let x = IMUTraceNumber.parse(bytes, pos, fieldEnd) else {
                    throw rowError(line, "column \(col + 1) ('\(columns[col])') is not a number: '\(fieldText(bytes, pos, fieldEnd))'")
                }
                if slot < 4 && !x.isFinite {
                    throw rowError(line, "column \(col + 1) ('\(columns[col])') must be finite")
                }
                switch slot {
                case 0: v.0 = x
                case 1: v.1 = x
                case 2: v.2 = x
                case 3: v.3 = x
                case 4: v.4 = x
                case 5: v.5 = x
                default: v.6 = x
                }
            }
            col += 1
            if fieldEnd >= count {
                break
            }
            pos = fieldEnd + 1
        }
        if col < requiredColumns {
            throw rowError(line, "expected at least \(requiredColumns) columns, found \(col)")
        }
        return IMUSample(t: v.0, ax: v.1, ay: v.2, az: v.3, gx: v.4, gy: v.5, gz: v.6)
    }

    private func fieldText(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<min(to, from + 40)]), as: UTF8.self)
    }

    private func rowError(_ line: UnsafeRawBufferPointer, _ message: String) -> IMUTraceError {
        IMUTraceError(path: path, line: lineNumber, message: message)
    }
}

/// Decimal number parsing over raw bytes.
///
/// The common case (≤ 19 significant digits, small exponent) is computed exactly as
/// mantissa × 10^k with one correctly rounded multiply or divide (Clinger's fast path);
/// anything else falls back to `strtod` on a stack copy, so results always equal
/// `Double(String)`.
enum IMUTraceNumber {
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses `bytes[from..<to]` (surrounding spaces allowed). Empty or `nan` gives NaN;
    /// nil when the field is not a number.
    @inline(__always)
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Double? {
        var i = from
        var stop = to
        while i < stop && (bytes[i] == 0x20 || bytes[i] == 0x09) { i += 1 }
        while stop > i && (bytes[stop - 1] == 0x20 || bytes[stop - 1] == 0x09) { stop -= 1 }
        if i == stop { return .nan }
        let numberStart = i
        var negative = false
        if bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if bytes[i] == UInt8(ascii: "+") { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var significant = 0
        var exponent = 0
        var sawDigit = false
        while i < stop {
            let d = bytes[i] &- 0x30
            if d > 9 { break }
            sawDigit = true
            if mantissa != 0 || d != 0 { significant += 1 }
            if significant <= 19 { mantissa = mantissa &* 10 &+ UInt64(d) } else { exponent += 1 }
            digits += 1
            i += 1
        }
        if i < stop && bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < stop {
                let d = bytes[i] &- 0x30
                if d > 9 { break }
                sawDigit = true
                if mantissa != 0 || d != 0 { significant += 1 }
                if significant <= 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    exponent -= 1
                }
                digits += 1
                i += 1
            }
        }
        if !sawDigit { return slowParse(bytes, numberStart, stop) }
        if i < stop && (bytes[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            guard let e = readExponent(bytes, &i, stop) else { return nil }
            exponent += e
        }
        if i != stop { return nil }
        if significant > 19 || mantissa > (1 << 53) || exponent < -22 || exponent > 22 {
            return slowParse(bytes, numberStart, stop)
        }
        var value = Double(mantissa)
        if exponent < 0 { value /= powersOfTen[-exponent] } else if exponent > 0 { value *= powersOfTen[exponent] }
        return negative ? -value : value
    }

    /// The exponent's sign and digits from `i` on (past the `e`); nil when it has no digits.
    /// It stops growing past 100 000, where every value has overflowed or underflowed.
    @inline(__always)
    private static func readExponent(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ stop: Int) -> Int? {
        var negative = false
        if i < stop && bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if i < stop && bytes[i] == UInt8(ascii: "+") { i += 1 }
        var e = 0
        var digits = 0
        while i < stop {
            let d = bytes[i] &- 0x30
            if d > 9 { break }
            if e < 100_000 { e = e * 10 + Int(d) }
            digits += 1
            i += 1
        }
        return digits == 0 ? nil : (negative ? -e : e)
    }

    /// `strtod` for the rare cases (long mantissas, large exponents, nan/inf spellings).
    private static func slowParse(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Double? {
        let length = to - from
        guard length > 0, length < 128 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { tmp -> Double? in
            for k in 0..<length { tmp[k] = CChar(bitPattern: bytes[from + k]) }
            tmp[length] = 0
            guard let base = tmp.baseAddress else { return nil }
            var endPtr: UnsafeMutablePointer<CChar>? = nil
            let x = strtod(base, &endPtr)
            guard let endPtr, endPtr == base + length else { return nil }
            return x
        }
    }
}
