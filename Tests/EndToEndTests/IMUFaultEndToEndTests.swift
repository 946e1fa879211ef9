import Foundation
import MoonRunnerProtocol
import Testing

/// Faults injected into the emulated MPU-6050 inside a running daemon
/// (`replay:FILE,fault=KIND@START+SECONDS`): each leaves the daemon running,
/// shows in STATUS as degraded or lost, and is recovered from with back-off.
@Suite("IMU faults in the running daemon", .serialized)
struct IMUFaultEndToEndTests {
    @Test("EIO, NACK, a wrong WHO_AM_I, a stuck FIFO count and an overflow: reported, recovered, nothing lost", arguments: [
        ("fault=eio@12+4", "bus_errors"),
        ("fault=nack@12+4", "bus_errors"),
        // WHO_AM_I is read when the device is (re)initialised: an EIO burst forces that
        // (three failed reads in a row: 2 s at the burst reads' 0.51 s).
        ("fault=eio@12+2,fault=whoami@12+5", "reinit"),
        ("fault=stuck@12+4", "fifo"),
        ("fault=overflow@12", "overflow"),
    ])
    func fault(plan: String, evidence: String) async throws {
        let rig = try Rig("imufault")
        try rig.startGPS(epochsPerSecond: 4, loop: true)
        let trace = Paths.demo.appendingPathComponent("walk-imu.csv.gz").path
        try rig.startDaemon(speed: 4, imu: "replay:\(trace),speed=4,loop,\(plan)")
        #expect(try rig.cli("start").status == 0)
        // Healthy first (the fault starts 12 s of replay, 3 s real, after the device is first addressed).
        _ = try rig.waitFor(timeout: 10, "the IMU healthy") { $0.imu.health == .ok && $0.imu.samples > 0 }
        var seen: [SensorHealth] = [.ok]
        var last: StatusReply?
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let s = try rig.status()
            if seen.last != s.imu.health { seen.append(s.imu.health) }
            last = s
            // Healthy again after the fault, with samples flowing.
            let faulted = plan.contains("overflow") ? s.imu.overflows >= 1 : seen.contains { $0 != .ok }
            if faulted, seen.count >= 2, s.imu.health == .ok { break }
            // Polled every 20 ms within the 30 s deadline: a degraded spell is short and must be seen.
            try await Task.sleep(for: .milliseconds(20))
        }
        let s = try #require(last)
        #expect(rig.daemon?.isRunning == true, "the daemon died: \(rig.daemon?.log.suffix(800) ?? "")")
        if plan.contains("overflow") {
            #expect(s.imu.overflows >= 1, "\(s.imu)")
        } else {
            #expect(seen.contains(.degraded) || seen.contains(.lost), "health seen: \(seen)")
            #expect(seen.last == .ok, "health seen: \(seen)")
        }
        switch evidence {
        case "bus_errors": #expect(s.imu.busErrors > 0, "\(s.imu)")
        case "reinit": #expect(s.imu.reinitializations >= 1 && s.imu.lastError != nil, "\(s.imu)")
        case "fifo": #expect(s.imu.fifoResets >= 1, "\(s.imu)")
        default: #expect(s.imu.fifoResets >= 1, "\(s.imu)")
        }
        // The session kept going: steps after the fault, GPS untouched.
        let later = try rig.waitFor(timeout: 20, "steps after the fault") { $0.steps > s.steps + 10 }
        #expect(later.session == s.session)
        #expect(later.gps.health == .ok)
        #expect(later.imu.health == .ok)
    }

    @Test("a fault is in the daemon's log by the time STATUS shows it")
    func faultLoggedWithStatus() throws {
        let rig = try Rig("imulog")
        try rig.startGPS(epochsPerSecond: 4, loop: true)
        let trace = Paths.demo.appendingPathComponent("walk-imu.csv.gz").path
        try rig.startDaemon(speed: 4, imu: "replay:\(trace),speed=4,loop,fault=eio@12+60")
        #expect(try rig.cli("start").status == 0)
        _ = try rig.waitFor(timeout: 10, "the IMU healthy") { $0.imu.health == .ok && $0.imu.samples > 0 }
        // Nobody watches, so no heartbeat comes in the meantime: the STATUS that shows the fault logs it.
        let st = try rig.waitFor(timeout: 20, "the IMU's fault") { $0.imu.health != .ok }
        let error = try #require(st.imu.lastError)
        let log = rig.daemon?.log ?? ""
        #expect(log.contains("imu: \(st.imu.health.rawValue): \(error)"), "the log has not said it: \(log.suffix(800))")
    }
}
