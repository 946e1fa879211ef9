import Foundation
import MoonRunnerTestSupport
import Testing

/// `moonrunner analyze --step-parameters` and `moonrunner step-sweep`, the
/// two ways the evaluation varies the step detector's parameters: both take
/// effect, agree with each other, and refuse a file they cannot use.
@Suite("Step detector parameters from a file")
struct StepParametersEndToEndTests {
    static var trace: String { Paths.demo.appendingPathComponent("walk-imu.csv.gz").path }

    static func steps(_ args: [String]) throws -> Int {
        let r = try run(Paths.cli, ["analyze", "--imu", trace, "--json", "--no-auto-pause"] + args)
        try #require(r.status == 0, "\(r.err)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any] ?? [:]
        return try #require(summary["steps"] as? Int)
    }

    @Test("a parameter file takes effect, and step-sweep counts every set as analyze does")
    func fileTakesEffect() throws {
        let dir = try Paths.tempDir("stepparams")
        defer { try? FileManager.default.removeItem(at: dir) }
        let strict = dir.appendingPathComponent("strict.json")
        // No step swings 5 g: nothing may be counted.
        try Data(#"{"minSwing": 5}"#.utf8).write(to: strict)
        let plain = try Self.steps([])
        #expect(plain > 150)
        #expect(try Self.steps(["--step-parameters", strict.path]) == 0)

        let sets = dir.appendingPathComponent("sets.jsonl")
        try Data("{}\n{\"minSwing\": 5}\n\n{\"startScore\": 0.7}\n".utf8).write(to: sets)
        let high = dir.appendingPathComponent("high.json")
        try Data(#"{"startScore": 0.7}"#.utf8).write(to: high)
        let r = try run(Paths.cli, ["step-sweep", "--parameters", sets.path, Self.trace])
        try #require(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
        }
        try #require(lines.count == 3, "\(r.out)")
        let counts = lines.map { (($0["ms"] as? [[Int]])?.first ?? [-1]).count }
        #expect(counts == [plain, 0, try Self.steps(["--step-parameters", high.path])])
        #expect(lines.map { $0["set"] as? Int } == [0, 1, 2])
    }

    @Test("the defaults print as JSON with every parameter")
    func defaultsPrint() throws {
        let r = try run(Paths.cli, ["step-sweep", "--defaults"])
        try #require(r.status == 0, "\(r.err)")
        let values = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any] ?? [:]
        #expect(values["minSwing"] as? Double == 0.1)
        #expect(values["startScore"] as? Double == 0.6)
        #expect(values.count >= 10)
    }

    @Test("an unknown name, a non-number or a missing file is refused with exit 65, naming the file and the problem",
          arguments: [
              (#"{"minSwng": 0.1}"#, "unknown step detector parameter 'minSwng'"),
              (#"{"minSwing": "high"}"#, "expected a JSON object of parameter names to numbers"),
              ("[0.1]", "expected a JSON object of parameter names to numbers"),
          ])
    func badFileRefused(content: String, message: String) throws {
        let dir = try Paths.tempDir("stepparams")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p.json")
        try Data(content.utf8).write(to: file)
        let r = try run(Paths.cli, ["analyze", "--imu", Self.trace, "--step-parameters", file.path])
        #expect(r.status == 65)
        #expect(r.err.contains(file.path) && r.err.contains(message), "\(r.err)")
        #expect(r.out.isEmpty)

        // One bad line of a sweep file names its line.
        let sets = dir.appendingPathComponent("sets.jsonl")
        try Data("{}\n\(content)\n".utf8).write(to: sets)
        let s = try run(Paths.cli, ["step-sweep", "--parameters", sets.path, Self.trace])
        #expect(s.status == 65)
        #expect(s.err.contains("\(sets.path):2: \(message)"), "\(s.err)")
        #expect(s.out.isEmpty)

        let missing = try run(Paths.cli, ["analyze", "--imu", Self.trace, "--step-parameters", dir.path + "/none.json"])
        #expect(missing.status == 65)
        #expect(missing.err.contains("none.json: cannot read the file"), "\(missing.err)")
    }
}
