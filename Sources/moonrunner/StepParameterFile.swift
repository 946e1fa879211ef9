import FoundationEssentials
import Glibc
import MoonRunnerConfig
import MoonRunnerCore

/// Reads adaptive step detector parameters from JSON: one object of
/// parameter name to number (`{"minSwing": 0.12}`), or, for a sweep, one such
/// object per line, each applied as the other tuning settings are
/// (`NamedSettings`). Names not in `AdaptiveStepDetector.Parameters.fields`
/// are errors, never ignored, so that a typo cannot silently evaluate the
/// defaults.
enum StepParameterFile {
    struct Problem: Error, CustomStringConvertible {
        var path: String
        var line: Int
        var message: String
        var description: String { line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)" }
    }

    /// The parameters of a file holding one JSON object.
    static func read(path: String) throws -> AdaptiveStepDetector.Parameters {
        try parse(load(path), path: path, line: 0)
    }

    /// One parameter set per non-empty line.
    static func readLines(path: String) throws -> [AdaptiveStepDetector.Parameters] {
        var sets: [AdaptiveStepDetector.Parameters] = []
        for (i, line) in try load(path).split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
        where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
            sets.append(try parse(Data(line), path: path, line: i + 1))
        }
        return sets
    }

    private static func load(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(path: path, line: 0, message: "cannot read the file")
        }
        return data
    }

    private static func parse(_ data: Data, path: String, line: Int) throws -> AdaptiveStepDetector.Parameters {
        let object: [String: Double]
        do {
            object = try JSONDecoder().decode([String: Double].self, from: data)
        } catch {
            throw Problem(path: path, line: line, message: "expected a JSON object of parameter names to numbers")
        }
        do {
            return try settings.apply(object, to: AdaptiveStepDetector.Parameters())
        } catch .unknownName(let name) {
            let known = AdaptiveStepDetector.Parameters.fields.map(\.name).joined(separator: ", ")
            throw Problem(path: path, line: line, message: "unknown step detector parameter '\(name)' (known: \(known))")
        } catch {
            throw Problem(path: path, line: line, message: "\(error)")
        }
    }

    private static let settings = NamedSettings(fields: AdaptiveStepDetector.Parameters.fields)
}
