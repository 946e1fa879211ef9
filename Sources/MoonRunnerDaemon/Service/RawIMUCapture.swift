import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerSensors

/// A diagnostic copy of the raw IMU samples as a trace file (the IMU trace
/// format, so `moonrunner analyze --imu` reads it back), capped in size.
/// Off unless `store.raw_imu_capture_mb` is set: a day of 100 Hz samples is
/// hundreds of megabytes, which a wearable's card should not fill by default.
final class RawIMUCapture: @unchecked Sendable {
    let path: String
    private let limit: Int
    private let handle: FileHandle
    private let logger: Logger
    private let lock = NSLock()
    private var written = 0
    private var full = false

    init?(directory: String, megabytes: Double, now: Double, logger: Logger) {
        guard megabytes > 0 else { return nil }
        let dir = (directory as NSString).appendingPathComponent("raw-imu")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        path = (dir as NSString).appendingPathComponent("imu-\(Int(now)).csv")
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let h = FileHandle(forWritingAtPath: path) else {
            logger.warning("raw IMU capture: cannot create \(path)")
            return nil
        }
        handle = h
        limit = Int(megabytes * 1_048_576)
        self.logger = logger
        write(Data(IMUTraceWriter.header(gyro: true).utf8))
        logger.notice("raw IMU capture to \(path), up to \(megabytes) MB")
    }

    deinit { try? handle.close() }

    /// Appends one batch (one write per batch, not per sample).
    func append(_ samples: [IMUSample]) {
        guard !samples.isEmpty else { return }
        var text = ""
        text.reserveCapacity(samples.count * 72)
        for s in samples {
            IMUTraceWriter.append(s, gyro: true, to: &text)
        }
        write(Data(text.utf8))
    }

    private func write(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        guard !full else { return }
        guard written + data.count <= limit else {
            full = true
            logger.notice("raw IMU capture reached its \(limit / 1_048_576) MB cap; stopped")
            return
        }
        do {
            try handle.write(contentsOf: data)
            written += data.count
        } catch {
            full = true
            logger.warning("raw IMU capture stopped: \(error)")
        }
    }
}
