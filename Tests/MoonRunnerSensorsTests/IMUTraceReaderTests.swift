import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

@Suite("IMU trace reader")
struct IMUTraceReaderTests {
    @Test func plainAndGzipGiveTheSameSamples() throws {
        let dir = IMUTempDir()
        let trace = IMUTestTraces.indexed(count: 5_000)
        let text = IMUTestTraces.csv(trace, gyro: true)
        // Deliberately misleading names: the format is told by magic bytes, not extension.
        let plain = try dir.write("plain.csv.gz", text)
        let gz = try dir.writeGzip("compressed.csv", text)
        let a = try IMUTraceReader.readAll(path: plain)
        let b = try IMUTraceReader.readAll(path: gz)
        #expect(a == trace)
        #expect(b == trace)
        #expect(try IMUTraceReader(path: gz).hasGyro)
    }

    @Test func streamingVisitsEveryRowInOrder() throws {
        let dir = IMUTempDir()
        let trace = IMUTestTraces.indexed(count: 300_000, gyro: false)   // spans many buffer refills
        let path = try dir.writeGzip("long.csv.gz", IMUTestTraces.csv(trace, gyro: false))
        let reader = try IMUTraceReader(path: path)
        #expect(!reader.hasGyro)
        var n = 0
        var mismatches = 0
        try reader.forEach { s in
            if s.t != trace[n].t || s.ax != trace[n].ax || s.az != trace[n].az || !s.gx.isNaN { mismatches += 1 }
            n += 1
        }
        #expect(n == trace.count)
        #expect(mismatches == 0)
    }

    @Test func columnsAreFoundByNameAndExtrasIgnored() throws {
        let dir = IMUTempDir()
        let text = "\u{FEFF}gz, label ,T,AX,ay,Az,gx,gy\r\n"
            + "0.3,walk,0.5,1.25,-2e-1,+3.5E+0,7,-8\r\n"
            + "\r\n"
            + "# a comment line\r\n"
            + "-0.25,stand,0.51,.5,-.75,1,0,0"   // no final newline
        let path = try dir.write("cols.csv", text)
        let reader = try IMUTraceReader(path: path)
        #expect(reader.hasGyro)
        var rows: [IMUSample] = []
        try reader.forEach { rows.append($0) }
        #expect(rows == [
            IMUSample(t: 0.5, ax: 1.25, ay: -0.2, az: 3.5, gx: 7, gy: -8, gz: 0.3),
            IMUSample(t: 0.51, ax: 0.5, ay: -0.75, az: 1, gx: 0, gy: 0, gz: -0.25),
        ])
    }

    @Test func missingGyroColumnsGiveNaNRotation() throws {
        let dir = IMUTempDir()
        let path = try dir.write("acc.csv", "t,ax,ay,az,temp\n0,0,0,1,20\n0.01,0.1,0,0.9,20\n")
        let all = try IMUTraceReader.readAll(path: path)
        #expect(all.count == 2)
        #expect(all.allSatisfy { !$0.hasGyro && $0.gx.isNaN && $0.gy.isNaN && $0.gz.isNaN })
        #expect(all[1].ax == 0.1)
    }

    @Test func emptyGyroFieldsReadAsNaN() throws {
        let dir = IMUTempDir()
        let path = try dir.write("holes.csv", "t,ax,ay,az,gx,gy,gz\n0,0,0,1,,,\n0.01,0,0,1,nan,1,2\n")
        let all = try IMUTraceReader.readAll(path: path)
        #expect(all.count == 2)
        #expect(all[0].gx.isNaN && all[0].gz.isNaN)
        #expect(all[1].gx.isNaN && all[1].gy == 1)
    }

    @Test func malformedRowNamesFileAndLine() throws {
        let dir = IMUTempDir()
        let path = try dir.write("bad.csv", "t,ax,ay,az\n0,0,0,1\n0.01,0,0,1\n0.02,0,zero,1\n0.03,0,0,1\n")
        var seen = 0
        do {
            try IMUTraceReader(path: path).forEach { _ in seen += 1 }
            Issue.record("a malformed row must throw")
        } catch let e as IMUTraceError {
            #expect(e.line == 4)
            #expect(e.description.contains("bad.csv:4"))
            #expect(e.description.contains("ay"))
        }
        #expect(seen == 2)
    }

    @Test func shortRowAndNonFiniteAccelerationAreErrors() throws {
        let dir = IMUTempDir()
        let short = try dir.write("short.csv", "t,ax,ay,az\n0,0,0,1\n0.01,0,0\n")
        #expect(throws: IMUTraceError.self) { try IMUTraceReader.readAll(path: short) }
        let inf = try dir.write("inf.csv", "t,ax,ay,az\n0,inf,0,1\n")
        do {
            _ = try IMUTraceReader.readAll(path: inf)
            Issue.record("non-finite acceleration must throw")
        } catch let e as IMUTraceError {
            #expect(e.line == 2)
        }
    }

    @Test func badHeaderAndMissingFileAreClearErrors() throws {
        let dir = IMUTempDir()
        let noAz = try dir.write("noaz.csv", "t,ax,ay\n0,0,0\n")
        do {
            _ = try IMUTraceReader(path: noAz)
            Issue.record("missing az must throw")
        } catch let e as IMUTraceError {
            #expect(e.description.contains("az"))
        }
        let partialGyro = try dir.write("pg.csv", "t,ax,ay,az,gx\n0,0,0,1,0\n")
        #expect(throws: IMUTraceError.self) { try IMUTraceReader(path: partialGyro) }
        let empty = try dir.write("empty.csv", "")
        #expect(throws: IMUTraceError.self) { try IMUTraceReader(path: empty) }
        do {
            _ = try IMUTraceReader(path: "\(dir.path)/does-not-exist.csv")
            Issue.record("missing file must throw")
        } catch let e as IMUTraceError {
            #expect(e.description.contains("does-not-exist.csv"))
        }
    }

    @Test func truncatedGzipIsAnError() throws {
        let dir = IMUTempDir()
        let gz = try dir.writeGzip("t.csv.gz", IMUTestTraces.csv(IMUTestTraces.indexed(count: 20_000), gyro: true))
        let data = try Data(contentsOf: URL(fileURLWithPath: gz))
        let cut = "\(dir.path)/cut.csv.gz"
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        #expect(throws: IMUTraceError.self) { try IMUTraceReader.readAll(path: cut) }
    }

    /// The byte parser must agree exactly with Swift's own decimal conversion.
    @Test func numberParserMatchesDoubleInit() throws {
        var rng = SystemRandomNumberGenerator()
        var texts: [String] = ["0", "-0", "1e0", "12345678901234567890", "0.1", "1.7976931348623157e308",
                               "4.9e-324", "123.456e-7", "-9.80665", "+0.5", "5.", "1E+22", "1e23",
                               "0.000000000000000000000000001", "123456789012345678901234567890e-10"]
        for _ in 0..<20_000 {
            let mantissa = Double.random(in: -1000...1000, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: texts.append("\(mantissa)")
            case 1: texts.append(String(format: "%.5f", mantissa))
            default: texts.append(String(format: "%.9e", mantissa))
            }
        }
        var bad: [String] = []
        for text in texts {
            let bytes = Array(text.utf8)
            let parsed = bytes.withUnsafeBufferPointer { IMUTraceNumber.parse($0, 0, $0.count) }
            let expected = Double(text)
            if parsed != expected { bad.append(text) }
        }
        #expect(bad.isEmpty, "mismatches: \(bad.prefix(5))")
        for junk in ["", "-", ".", "e5", "1e", "1.2.3", "12a", "--1"] {
            let bytes = Array(junk.utf8)
            let parsed = bytes.withUnsafeBufferPointer { IMUTraceNumber.parse($0, 0, $0.count) }
            if junk.isEmpty {
                #expect(parsed?.isNaN == true)
            } else {
                #expect(parsed == nil, "'\(junk)' must not parse")
            }
        }
    }

    @Test(.enabled(if: IMUSharedData.available, "../shared/data is absent"))
    func readsTheLabelledTraces() throws {
        let steps = IMUSharedData.stepsFolder
        let withGyro = try IMUTraceReader(path: "\(steps)/ipol_healthy_gait_lowback/1-1.csv.gz")
        #expect(withGyro.hasGyro)
        var previous = -Double.infinity
        var n = 0
        var outOfOrder = 0
        try withGyro.forEach { s in
            if s.t <= previous { outOfOrder += 1 }
            previous = s.t
            n += 1
            #expect(s.isPlausible)
        }
        #expect(n > 1_000)
        #expect(outOfOrder == 0)
        let folder = "\(steps)/oxford_step_counter"
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".csv.gz") })
        let accelOnly = try IMUTraceReader.readAll(path: "\(folder)/\(name)")
        #expect(accelOnly.count > 1_000)
        #expect(accelOnly.allSatisfy { !$0.hasGyro })
    }
}
