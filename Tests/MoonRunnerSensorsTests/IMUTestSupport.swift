import Foundation
import MoonRunnerCore
import Synchronization
@testable import MoonRunnerSensors

/// A virtual engine clock for IMU tests: `sleep` advances it instead of waiting, so the
/// driver, the emulator and the service run deterministically and fast.
final class IMUManualClock: Sendable {
    private let time: Mutex<Double>
    /// Real seconds each `sleep` also takes, so a service thread does not spin flat out.
    private let realPause: Double

    init(start: Double = 1_000, realPause: Double = 0) {
        time = Mutex(start)
        self.realPause = realPause
    }

    var now: Double { time.withLock { $0 } }

    func advance(_ seconds: Double) {
        time.withLock { $0 += seconds }
    }

    var imuClock: IMUClock {
        IMUClock(now: { self.now }, sleep: { seconds in
            self.advance(seconds)
            if self.realPause > 0 { usleep(UInt32(self.realPause * 1e6)) }
        })
    }
}

enum IMUTestTraces {
    /// A deterministic trace whose accelerometer encodes the sample index (ax carries
    /// k mod 3584 in steps of 1/256 g = 16 LSB at ±8 g, az the rest in steps of 1/16 g),
    /// so a delivered sample tells which trace sample it is.
    static func indexed(count: Int, rate: Double = 100, gyro: Bool = true, t0: Double = 0) -> [IMUSample] {
        (0..<count).map { k in
            let t = t0 + Double(k) / rate
            let w = 2 * Double.pi * 1.7 * t
            return IMUSample(t: t, ax: -7 + Double(k % 3584) / 256, ay: 0.6 * sin(w), az: 1 + Double(k / 3584) / 16,
                             gx: gyro ? 3 * sin(0.3 * w) : .nan, gy: gyro ? -2.5 * cos(w) : .nan,
                             gz: gyro ? 0.7 * sin(2 * w) : .nan)
        }
    }

    /// The trace index a sample of `indexed(...)` carries (nil when it is not one).
    static func index(of s: IMUSample) -> Int? {
        let low = (s.ax + 7) * 256
        let high = (s.az - 1) * 16
        guard abs(low - low.rounded()) < 0.1, abs(high - high.rounded()) < 0.1 else { return nil }
        return Int(high.rounded()) * 3584 + Int(low.rounded())
    }

    /// Writes `samples` as an IMU CSV trace (with or without gyro columns).
    static func csv(_ samples: [IMUSample], gyro: Bool) -> String {
        var s = gyro ? "t,ax,ay,az,gx,gy,gz\n" : "t,ax,ay,az\n"
        for x in samples {
            s += "\(x.t),\(x.ax),\(x.ay),\(x.az)"
            if gyro { s += ",\(x.gx),\(x.gy),\(x.gz)" }
            s += "\n"
        }
        return s
    }
}

/// A scratch directory removed when the value is released.
final class IMUTempDir {
    let path: String

    init() {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/imu-tests-\(getpid())-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ text: String) throws -> String {
        let p = "\(path)/\(name)"
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    /// Writes `text` gzip-compressed (through /bin/gzip, so the reader is checked against
    /// an independent compressor) under `name`.
    func writeGzip(_ name: String, _ text: String) throws -> String {
        let plain = try write(name + ".tmp", text)
        let out = "\(path)/\(name)"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -c '\(plain)' > '\(out)'"]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return out
    }
}

/// Polls `condition` in real time (the service runs on its own thread). Suspends rather
/// than blocks, so the batch consumers keep running on the cooperative pool.
func imuWait(timeout: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 2_000_000)
    }
    return condition()
}

/// Where the shared labelled data lives, relative to the package root.
enum IMUSharedData {
    static var stepsFolder: String {
        let here = URL(fileURLWithPath: #filePath)   // …/Tests/MoonRunnerSensorsTests/IMUTestSupport.swift
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent("../shared/data/steps").standardizedFileURL.path
    }

    static var available: Bool {
        let ok = FileManager.default.fileExists(atPath: stepsFolder)
        if !ok { print("⚠️ SKIPPING IMU data tests: \(stepsFolder) is absent") }
        return ok
    }
}
