import Foundation
import MoonRunnerTestSupport

/// Where the real servers' programs are, for the suites that start them:
/// a virtualenv named by `MOONRUNNER_UPLOAD_VENV` (else
/// `~/.cache/moonrunner-upload/venv`) for PyPI's wsgidav and FitTrackee,
/// then `PATH`; PostgreSQL from Debian's `postgresql-15`. A suite whose
/// programs are missing is reported as skipped by the runner, never passed.
enum ServerTools {
    static let environment = ProcessInfo.processInfo.environment

    static var venvBin: String {
        let venv = environment["MOONRUNNER_UPLOAD_VENV"] ?? NSHomeDirectory() + "/.cache/moonrunner-upload/venv"
        return venv + "/bin"
    }

    /// The program's path: the venv's, else the first on PATH; nil when absent.
    static func find(_ name: String, venv: Bool = true) -> String? {
        let dirs = (venv ? [venvBin] : []) + (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        return dirs.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The system's Python (with garmin-fit-sdk for the stand-ins' read-back), not the venv's.
    static let python = find("python3", venv: false)
    static let wsgidav = find("wsgidav")
    static let fittrackee = find("fittrackee")
    static let ftcli = find("ftcli")
    static let postgresBin = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin"]
        .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }

    /// True when the Python beside `program` (its venv's, or the system's) imports `modules`:
    /// a venv made without one of them (wsgidav without cheroot) is skipped, not failed.
    static func ready(_ program: String?, imports modules: [String]) -> Bool {
        guard let program else { return false }
        let python = (program as NSString).deletingLastPathComponent + "/python3"
        guard FileManager.default.isExecutableFile(atPath: python),
              let r = try? run(python, ["-c", "import " + modules.joined(separator: ", ")], timeout: 120) else { return false }
        return r.status == 0
    }

    static let davReady = ready(wsgidav, imports: ["wsgidav", "cheroot"])
    static let fittrackeeReady = postgresBin != nil && ready(fittrackee, imports: ["fittrackee", "gunicorn", "psycopg2"])

    /// The stand-ins' folder (Tests/Tools).
    static let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools").path

    /// A fresh folder for one suite's servers.
    static func scratch(_ name: String) throws -> String {
        let dir = NSTemporaryDirectory() + "upload-\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A free loopback TCP port.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SpawnError("socket failed") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw SpawnError("bind failed") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// True once something accepts connections on the loopback port.
    static func listening(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Waits for a server's port, or throws with the end of its log when it died or never listened.
    static func waitListening(_ port: Int, _ child: Child, timeout: Double) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        // Checked once more after each wait: under a full parallel run the wait itself can outlast the deadline.
        while true {
            if listening(port) { return }
            guard child.isRunning, Date() < deadline else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SpawnError("nothing listens on \(port): \(child.log.suffix(1500))")
    }
}
