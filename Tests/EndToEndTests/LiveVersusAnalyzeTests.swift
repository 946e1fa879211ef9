import Foundation
import MoonRunnerProtocol
import Testing

/// The live daemon (trace → emulated MPU-6050 → real driver → engine) and
/// `moonrunner analyze` (trace → engine) run the same core: for the same
/// trace they count the same steps.
///
/// The trace is stamped on the GPS log's clock, a minute after its first fix, so
/// that it plays whole inside the session: a trace stamped from 0 plays from the
/// daemon's start, as the GPS log does, and the session would miss its first
/// seconds (what the IMU gave while no session wanted it is not taken).
@Suite("Live daemon versus analyze", .serialized)
struct LiveVersusAnalyzeTests {
    @Test("the same trace replayed through the daemon and through analyze gives the same steps")
    func sameSteps() async throws {
        let rig = try Rig("same")
        // The demo's first 200 s (standing, then walking), quantised to the sensor's
        // resolution at ±8 g (1/4096 g) so that the emulator carries it bit for bit,
        // stamped from the GPS log's first fix (UTC) plus a minute (3 s at 20×).
        let trace = rig.dir.appendingPathComponent("trace.csv")
        let nmea = Paths.demo.appendingPathComponent("walk.nmea")
        let script = """
            import calendar, gzip, sys
            src, nmea, dst = sys.argv[1], sys.argv[2], sys.argv[3]
            for line in open(nmea):
                f = line.split(",")
                if f[0].endswith("RMC") and f[2] == "A":
                    d, hms = f[9], f[1]
                    first = calendar.timegm((2000 + int(d[4:6]), int(d[2:4]), int(d[:2]),
                                             int(hms[:2]), int(hms[2:4]), 0)) + float(hms[4:])
                    break
            with gzip.open(src, "rt") as f, open(dst, "w") as out:
                out.write(next(f))
                for line in f:
                    t, ax, ay, az = (float(x) for x in line.split(",")[:4])
                    if t >= 200: break
                    q = lambda v: round(v * 4096) / 4096
                    out.write(f"{first + 60 + t:.3f},{q(ax)!r},{q(ay)!r},{q(az)!r}\\n")
            """
        let made = try run("/usr/bin/env", ["python3", "-c", script,
                                             Paths.demo.appendingPathComponent("walk-imu.csv.gz").path, nmea.path,
                                             trace.path])
        try #require(made.status == 0, "\(made.err)")

        let offline = try run(Paths.cli, ["analyze", "--imu", trace.path, "--json", "--no-auto-pause"])
        try #require(offline.status == 0, "\(offline.err)")
        let summary = try JSONSerialization.jsonObject(with: Data(offline.out.utf8)) as? [String: Any] ?? [:]
        let offlineSteps = try #require(summary["steps"] as? Int)
        #expect(offlineSteps > 150)

        try rig.startGPS(epochsPerSecond: 20, loop: true)
        try rig.startDaemon(speed: 20, imu: "replay:\(trace.path),speed=20",
                            config: "imu:\n  rate_hz: 50\nauto_pause:\n  enabled: false\n")
        #expect(try rig.cli("start").status == 0)
        // The trace plays out (the IMU reports lost at its end), then stop.
        let ended = try rig.waitFor(timeout: 60, "the end of the trace") { $0.imu.health == .lost && $0.imu.samples > 9000 }
        #expect(try rig.cli("stop").status == 0)
        let id = try #require(ended.session)
        let live = try rig.session(id)
        #expect(live.stats.steps == offlineSteps, "daemon \(live.stats.steps) steps, analyze \(offlineSteps)")
        #expect(ended.imu.samples == 10_000, "the daemon got \(ended.imu.samples) of 10,000 samples")
    }
}
