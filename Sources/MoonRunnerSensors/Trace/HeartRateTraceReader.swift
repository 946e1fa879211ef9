import MoonRunnerCore

/// Reader for heart-rate traces: CSV with header `t,bpm,rr_ms` — `t` in
/// seconds (UNIX time beside a GPS log, or from 0), `bpm` the strap's value
/// (empty: a missing reading), `rr_ms` the R–R intervals in milliseconds that
/// arrived with it, space separated (may be empty or absent). Plain or gzip.
///
/// Columns are found by name, extras ignored, blank lines and `#` lines
/// skipped; any other malformed row is a `TraceFileError` naming the file and
/// line, so a damaged trace is never mistaken for a quiet strap. Implausible
/// values (a bpm of 300) are data, and so is a row stamped before the one
/// above (real straps do that, a second back): kept in file order, the engine
/// drops and counts it (`out_of_order`).
public enum HeartRateTraceReader {
    public static let header = "t,bpm,rr_ms"

    public static func readAll(path: String) throws -> [HeartRateSample] {
        try parse(BaroTraceReader.readFile(path), path: path)
    }

    /// Parses a trace held in memory (`path` names it in errors).
    public static func parse(_ bytes: [UInt8], path: String) throws -> [HeartRateSample] {
        let text = String(decoding: bytes, as: UTF8.self)
        var out: [HeartRateSample] = []
        var columns: Columns?
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(raw)
            if line.last == "\r" { line.removeLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.first == "#" { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: " \t\"'\u{FEFF}")
            }
            guard let c = columns else {
                columns = try Columns(header: fields, path: path, line: lineNumber)
                continue
            }
            out.append(try c.sample(fields, path: path, line: lineNumber))
        }
        if columns == nil {
            throw TraceFileError(path: path, line: 0, message: "empty file: no header line (expected \(header))")
        }
        return out
    }

    /// Where the header puts `t`, `bpm` and (if present) `rr_ms`.
    private struct Columns {
        var t: Int
        var bpm: Int
        var rr: Int?

        init(header fields: [String], path: String, line: Int) throws {
            let names = fields.map { $0.lowercased() }
            guard let t = names.firstIndex(of: "t"), let bpm = names.firstIndex(of: "bpm") else {
                throw TraceFileError(path: path, line: line,
                                     message: "header lacks column 't' or 'bpm' (need \(header))")
            }
            self.t = t
            self.bpm = bpm
            rr = names.firstIndex(of: "rr_ms")
        }

        /// One row.
        func sample(_ fields: [String], path: String, line: Int) throws -> HeartRateSample {
            let needed = max(t, bpm) + 1
            guard fields.count >= needed else {
                throw TraceFileError(path: path, line: line,
                                     message: "expected at least \(needed) columns (\(header)), found \(fields.count)")
            }
            guard let time = Double(fields[t]), time.isFinite else {
                throw TraceFileError(path: path, line: line,
                                     message: "column \(t + 1) ('t') is not a time in seconds: '\(fields[t].prefix(40))'")
            }
            var rate = 0
            if !fields[bpm].isEmpty {
                guard let v = Double(fields[bpm]), v.isFinite, v >= 0, v <= 65535 else {
                    throw TraceFileError(path: path, line: line,
                                         message: "column \(bpm + 1) ('bpm') is not a heart rate (a whole number of beats per minute, or empty): '\(fields[bpm].prefix(40))'")
                }
                rate = Int(v.rounded())
            }
            let intervals = try rrIntervals(fields, path: path, line: line)
            return HeartRateSample(t: time, bpm: rate, contact: rate > 0 ? .detected : .notSupported,
                                   rrMilliseconds: intervals)
        }

        /// The R–R intervals of a row (ms), none when the column is absent or empty.
        private func rrIntervals(_ fields: [String], path: String, line: Int) throws -> [Double] {
            guard let r = rr, r < fields.count, !fields[r].isEmpty else { return [] }
            var out: [Double] = []
            for item in fields[r].split(separator: " ") {
                guard let ms = Double(item), ms.isFinite, ms > 0 else {
                    throw TraceFileError(path: path, line: line,
                                         message: "column \(r + 1) ('rr_ms') must be R–R intervals in milliseconds, space separated: '\(item.prefix(40))'")
                }
                out.append(ms)
            }
            return out
        }
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
