import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

@Suite("Heart-rate trace reader")
struct HeartRateTraceReaderTests {
    @Test("plain and gzip read the same; an empty bpm is a missing reading, RR intervals space separated")
    func reads() throws {
        let dir = IMUTempDir()
        let text = "# a comment\nt,bpm,rr_ms\n1000,72,830 812\n\n1001,,\n1002,74\n"
        let a = try HeartRateTraceReader.readAll(path: dir.write("h.csv", text))
        let b = try HeartRateTraceReader.readAll(path: dir.writeGzip("h.csv.gz", text))
        #expect(a == b)
        #expect(a == [HeartRateSample(t: 1000, bpm: 72, contact: .detected, rrMilliseconds: [830, 812]),
                      HeartRateSample(t: 1001, bpm: 0, contact: .notSupported),
                      HeartRateSample(t: 1002, bpm: 74, contact: .detected)])
    }

    @Test("a row stamped before the one above it is no error: it is kept in file order for the engine to drop and count")
    func rowGoingBack() throws {
        let dir = IMUTempDir()
        let path = try dir.write("back.hr.csv", "t,bpm,rr_ms\n5,72,\n4,73,\n6,74,\n")
        defer { withExtendedLifetime(dir) {} }
        #expect(try HeartRateTraceReader.readAll(path: path).map(\.t) == [5, 4, 6])
    }

    @Test("bad lines: the file, the line and what was expected", arguments: [
        ("t,bpm,rr_ms\n1,72,\n2,abc,\n", 3, "column 2 ('bpm') is not a heart rate (a whole number of beats per minute, or empty): 'abc'"),
        ("t,bpm,rr_ms\n1,72,800 x\n", 2, "column 3 ('rr_ms') must be R–R intervals in milliseconds, space separated: 'x'"),
        ("t,bpm,rr_ms\n1,72,-800\n", 2, "column 3 ('rr_ms') must be R–R intervals in milliseconds, space separated: '-800'"),
        ("t,bpm,rr_ms\nnan,72,\n", 2, "column 1 ('t') is not a time in seconds: 'nan'"),
        ("bpm,rr_ms,t\n72\n", 2, "expected at least 3 columns (t,bpm,rr_ms), found 1"),
        ("time,hr\n1,72\n", 1, "header lacks column 't' or 'bpm' (need t,bpm,rr_ms)"),
        ("", 0, "empty file: no header line (expected t,bpm,rr_ms)"),
    ])
    func badLines(text: String, line: Int, message: String) throws {
        let dir = IMUTempDir()
        let path = try dir.write("bad.hr.csv", text)
        defer { withExtendedLifetime(dir) {} }
        do {
            _ = try HeartRateTraceReader.readAll(path: path)
            Issue.record("no error for \(text)")
        } catch let e as TraceFileError {
            #expect(e == TraceFileError(path: path, line: line, message: message))
            #expect(e.description.hasPrefix(line > 0 ? "\(path):\(line): " : "\(path): "))
        }
    }

    @Test("a missing file says so")
    func missing() {
        #expect(throws: TraceFileError.self) { try HeartRateTraceReader.readAll(path: "/nonexistent/h.csv") }
    }
}
