import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

@Suite("Barometer traces")
struct BaroTraceReaderTests {
    @Test("plain and gzip traces read the same; columns by name, temperature optional")
    func reads() throws {
        let dir = IMUTempDir()
        let text = "# a comment\nt,pressure_pa,temperature_c\n1.0,98000.5,22.5\n\n1.1,98001.25,22.6\n"
        let plain = try dir.write("b.csv", text)
        let gz = try dir.writeGzip("b.csv.gz", text)
        let a = try BaroTraceReader.readAll(path: plain)
        let b = try BaroTraceReader.readAll(path: gz)
        #expect(a == b)
        #expect(a == [BaroSample(t: 1, pressure: 98_000.5, temperature: 22.5), BaroSample(t: 1.1, pressure: 98_001.25, temperature: 22.6)])
        let noTemp = try BaroTraceReader.readAll(path: dir.write("c.csv", "pressure_pa,t,x\n98000,5,q\n"))
        #expect(noTemp.count == 1 && noTemp[0].t == 5 && noTemp[0].pressure == 98_000 && noTemp[0].temperature.isNaN)
    }

    @Test("bad lines: the file, the line and what was expected", arguments: [
        ("t,pressure_pa,temperature_c\n1,98000,20\n2,abc,20\n", 3, "column 2 ('pressure_pa') is not a number: 'abc'"),
        ("t,pressure_pa,temperature_c\n1,98000\n", 2, "expected at least 3 columns, found 2"),
        ("t,pressure_pa,temperature_c\ninf,98000,20\n", 2, "column 1 ('t') must be finite"),
        ("time,p\n1,2\n", 1, "header lacks column 't' or 'pressure_pa' (need t,pressure_pa,temperature_c)"),
        ("", 0, "empty file: no header line (expected t,pressure_pa,temperature_c)"),
    ])
    func badLines(text: String, line: Int, message: String) throws {
        let dir = IMUTempDir()
        let path = try dir.write("bad.csv", text)
        defer { withExtendedLifetime(dir) {} }
        do {
            _ = try BaroTraceReader.readAll(path: path)
            Issue.record("no error for \(text)")
        } catch let e as TraceFileError {
            #expect(e == TraceFileError(path: path, line: line, message: message))
            #expect(e.description.hasPrefix(line > 0 ? "\(path):\(line): " : "\(path): "))
        }
    }

    @Test("a missing file says so")
    func missing() {
        #expect(throws: TraceFileError.self) { try BaroTraceReader.readAll(path: "/nonexistent/b.csv") }
    }

    @Test("the shared data's traces read whole", .enabled(if: BaroTraceReaderTests.data != nil, "the shared data's baro/ is absent (MOONRUNNER_DATA)"))
    func sharedData() throws {
        let dir = try #require(Self.data)
        let s = try BaroTraceReader.readAll(path: dir + "/d_stationary.baro.csv.gz")
        #expect(s.count == 6000)
        #expect(s.allSatisfy { $0.isPlausible })
    }

    static var data: String? {
        let root = ProcessInfo.processInfo.environment["MOONRUNNER_DATA"] ?? "../shared/data"
        let dir = root + "/baro"
        return FileManager.default.fileExists(atPath: dir) ? dir : nil
    }
}
