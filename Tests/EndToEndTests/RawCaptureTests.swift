import Foundation
import MoonRunnerProtocol
import Testing

@Suite("Raw IMU capture (diagnostic)", .serialized)
struct RawCaptureTests {
    @Test("off by default; when on, a trace analyze can read, within its size cap")
    func capture() async throws {
        let rig = try Rig("raw")
        try rig.startGPS(epochsPerSecond: 10, loop: true)
        try rig.startDaemon(speed: 10)
        // The IMU is read while a session records (it sleeps without one).
        #expect(try rig.cli("start").status == 0)
        _ = try rig.waitFor(timeout: 20, "samples") { $0.imu.samples > 1000 }
        let dir = rig.state.appendingPathComponent("raw-imu").path
        #expect(!FileManager.default.fileExists(atPath: dir), "raw capture must be off by default")
        rig.daemon?.signal(SIGTERM)
        _ = rig.daemon?.wait(timeout: 10)

        // The session of the first daemon is resumed: the IMU is read again.
        try rig.startDaemon(speed: 10, config: "store:\n  raw_imu_capture_mb: 0.05\n")
        _ = try rig.waitFor(timeout: 20, "samples") { $0.imu.samples > 4000 }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        let file = try #require(files.first.map { "\(dir)/\($0)" })
        let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        #expect(size > 10_000 && size <= 52_429, "size \(size)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("t,ax,ay,az,gx,gy,gz\n"))
        let analyzed = try run(Paths.cli, ["analyze", "--imu", file, "--json"])
        #expect(analyzed.status == 0, "\(analyzed.err)")
    }
}
