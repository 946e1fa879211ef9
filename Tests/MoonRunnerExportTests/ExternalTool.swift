import Foundation
import MoonRunnerTestSupport
import Testing

/// Runs the independent readers the exports are checked with (gpsbabel,
/// rsvg-convert, Python with gpxpy / garmin-fit-sdk) and captures their output.
struct ExternalTool {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Missing: Error, CustomStringConvertible {
        var tool: String
        var hint: String
        var description: String { "\(tool) is not installed: \(hint)" }
    }

    /// Full path of `name` on PATH (or `name` itself when it is a path), nil when absent.
    static func locate(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `name` with `arguments`; throws `Missing` (with how to install it) when absent.
    static func run(_ name: String, _ arguments: [String], hint: String) throws -> Result {
        guard let executable = locate(name) else { throw Missing(tool: name, hint: hint) }
        // posix_spawn-based: Foundation's Process is not safe from parallel tests on Linux.
        let r = try MoonRunnerTestSupport.run(executable, arguments, timeout: 300)
        return Result(status: r.status, stdout: r.out, stderr: r.err)
    }

    static let gpsbabelHint = "apt-get install -y gpsbabel"
    static let rsvgHint = "apt-get install -y librsvg2-bin"
    static let pythonHint = "apt-get install -y python3; pip install gpxpy garmin-fit-sdk"

    /// The interpreter with gpxpy and garmin-fit-sdk: $MOONRUNNER_PYTHON (e.g. a venv's), else python3 on PATH.
    static var pythonInterpreter: String {
        let chosen = ProcessInfo.processInfo.environment["MOONRUNNER_PYTHON"] ?? ""
        return chosen.isEmpty ? "python3" : chosen
    }

    /// Runs a Python script (stdin-free, via -c) and decodes its last output line as JSON.
    static func python(_ script: String, _ arguments: [String]) throws -> [String: Any] {
        let r = try run(pythonInterpreter, ["-c", script] + arguments, hint: pythonHint)
        guard r.status == 0 else {
            throw Failure("python3 failed (\(r.status)); the checks need `\(pythonHint)`: \(r.stderr.suffix(2000))")
        }
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw Failure("python3 printed no JSON object: \(r.stdout.suffix(500))")
        }
        return object
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }
}


/// A fresh temporary directory for one test's files.
func makeScratchDirectory(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("moonrunner-export-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Where sample exports are kept for people to look at: $MOONRUNNER_EXPORT_SAMPLES if set.
func keepSample(_ data: Data, name: String) {
    guard let dir = ProcessInfo.processInfo.environment["MOONRUNNER_EXPORT_SAMPLES"] else { return }
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try? data.write(to: URL(fileURLWithPath: dir).appendingPathComponent(name))
}
