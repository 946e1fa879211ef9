import Foundation
import MoonRunnerProtocol
import Testing

/// A GPS-only set-up: no IMU configured is a configuration, not a fault.
@Suite("No IMU", .serialized)
struct NoIMUEndToEndTests {
    @Test("--imu none starts the daemon; STATUS says no IMU is configured; a session records distance from the GPS")
    func gpsOnly() async throws {
        let rig = try Rig("noimu")
        try rig.startGPS(epochsPerSecond: 10, loop: true)
        try rig.startDaemon(speed: 10, imu: "none")
        #expect(try rig.status().imu.health == .none)
        #expect(try rig.cli("start").status == 0)
        let s = try rig.waitFor(timeout: 30, "distance from the GPS alone") { $0.distanceM > 30 }
        #expect(s.imu.health == .none && s.imu.samples == 0 && s.steps == 0, "\(s.imu)")
        #expect(try rig.cli("stop").status == 0)
        #expect(rig.daemon?.isRunning == true)
    }
}
