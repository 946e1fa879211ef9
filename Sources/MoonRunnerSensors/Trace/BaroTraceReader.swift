import CZlib
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerSystem

/// Reader for barometer traces: CSV with header `t,pressure_pa,temperature_c`
/// (`t` in seconds on the GPS trace's clock, pressure in Pa, temperature in
/// °C, which may be absent), plain or gzip.
///
/// Columns are found by name and extra columns are ignored. Blank lines and
/// lines starting with `#` are skipped; any other malformed row is a
/// `TraceFileError` naming the file, the line and what was expected, so a
/// damaged trace is never mistaken for a quiet one. Values that parse but
/// are impossible (5 hPa) are data: the fusion refuses and counts them. A
/// barometer trace is small (10 Hz is 36,000 rows an hour): read whole.
public enum BaroTraceReader {
    public static let header = "t,pressure_pa,temperature_c"

    /// Reads every row of `path`.
    public static func readAll(path: String) throws -> [BaroSample] {
        let bytes = try readFile(path)
        return try parse(bytes, path: path)
    }

    /// Parses a trace held in memory (`path` names it in errors).
    public static func parse(_ bytes: [UInt8], path: String) throws -> [BaroSample] {
        var out: [BaroSample] = []
        out.reserveCapacity(bytes.count / 24)
        try bytes.withUnsafeBufferPointer { all in
            var lineNumber = 0
            var start = 0
            var slots: (t: Int, p: Int, temp: Int)?
            var needed = 0
            var names: [String] = []
            while start < all.count {
                var end = start
                while end < all.count && all[end] != 0x0A { end += 1 }
                lineNumber += 1
                var stop = end
                if stop > start && all[stop - 1] == 0x0D { stop -= 1 }
                defer { start = end + 1 }
                var first = start
                while first < stop && (all[first] == 0x20 || all[first] == 0x09) { first += 1 }
                if first == stop || all[first] == UInt8(ascii: "#") { continue }
                guard let columns = slots else {
                    names = headerNames(all, start, stop)
                    let lower = names.map { $0.lowercased() }
                    guard let t = lower.firstIndex(of: "t"), let p = lower.firstIndex(of: "pressure_pa") else {
                        throw TraceFileError(path: path, line: lineNumber,
                                             message: "header lacks column 't' or 'pressure_pa' (need \(header))")
                    }
                    let temp = lower.firstIndex(of: "temperature_c") ?? -1
                    slots = (t, p, temp)
                    needed = max(t, p, temp) + 1
                    continue
                }
                out.append(try row(all, start, stop, columns, needed: needed, names: names,
                                   path: path, line: lineNumber))
            }
            if slots == nil {
                throw TraceFileError(path: path, line: 0, message: "empty file: no header line (expected \(header))")
            }
        }
        return out
    }

    private static func row(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int,
                            _ slots: (t: Int, p: Int, temp: Int), needed: Int, names: [String],
                            path: String, line: Int) throws -> BaroSample {
        var t = Double.nan, p = Double.nan, temp = Double.nan
        var column = 0
        var pos = from
        while true {
            var fieldEnd = pos
            while fieldEnd < to && b[fieldEnd] != 0x2C { fieldEnd += 1 }
            if column == slots.t || column == slots.p || column == slots.temp {
                guard let x = IMUTraceNumber.parse(b, pos, fieldEnd) else {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: b[pos..<min(fieldEnd, pos + 40)]), as: UTF8.self)
                    throw TraceFileError(path: path, line: line,
                                         message: "column \(column + 1) ('\(names[column])') is not a number: '\(text)'")
                }
                if column != slots.temp && !x.isFinite {
                    throw TraceFileError(path: path, line: line,
                                         message: "column \(column + 1) ('\(names[column])') must be finite")
                }
                if column == slots.t { t = x } else if column == slots.p { p = x } else { temp = x }
            }
            column += 1
            if fieldEnd >= to { break }
            pos = fieldEnd + 1
        }
        guard column >= needed else {
            throw TraceFileError(path: path, line: line, message: "expected at least \(needed) columns, found \(column)")
        }
        return BaroSample(t: t, pressure: p, temperature: temp)
    }

    private static func headerNames(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> [String] {
        var text = String(decoding: UnsafeBufferPointer(rebasing: b[from..<to]), as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingScalars(where: { " \t\"'".unicodeScalars.contains($0) })
        }
    }

    /// The file's bytes, gunzipped when it is gzip (zlib reads plain files as they are).
    static func readFile(_ path: String) throws -> [UInt8] {
        guard let f = gzopen(path, "rb") else {
            throw TraceFileError(path: path, line: 0, message: "cannot open: \(errnoText(errno))")
        }
        defer { gzclose(f) }
        var bytes: [UInt8] = []
        let chunk = 1 << 16
        while true {
            let old = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: chunk))
            let n = bytes.withUnsafeMutableBufferPointer { buf in
                gzread(f, buf.baseAddress.map { $0 + old }, UInt32(chunk))
            }
            if n < 0 {
                var code: Int32 = 0
                let msg = gzerror(f, &code).map { String(cString: $0) } ?? "read error"
                throw TraceFileError(path: path, line: 0, message: "read failed: \(msg)")
            }
            bytes.removeLast(chunk - Int(n))
            if n == 0 {
                var code: Int32 = 0
                _ = gzerror(f, &code)
                if code == Z_BUF_ERROR {
                    throw TraceFileError(path: path, line: 0, message: "truncated gzip stream")
                }
                return bytes
            }
        }
    }
}
