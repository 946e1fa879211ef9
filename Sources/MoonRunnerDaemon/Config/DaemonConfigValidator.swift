import Foundation
import MoonRunnerCore
import MoonRunnerSensors

/// Checks that need more than the value itself (files that must exist,
/// specs that must parse) before the daemon starts anything.
public enum DaemonConfigValidator {
    public static func validateAtStart(_ c: DaemonConfig) throws(ConfigError) {
        let spec = try imuSpec(c)
        if case let .replay(path, _, _, _) = spec, !FileManager.default.isReadableFile(atPath: path) {
            throw ConfigError(key: "imu.source", value: c.imuSource, allowed: "a readable IMU trace file (\(path) is not)")
        }
    }

    /// The parsed `imu.source`; the value was checked when loaded, so a
    /// failure here names the key all the same.
    public static func imuSpec(_ c: DaemonConfig) throws(ConfigError) -> IMUSourceSpec {
        do {
            return try IMUSourceSpec.parse(c.imuSource)
        } catch {
            throw ConfigError(key: "imu.source", value: c.imuSource, allowed: error.reason)
        }
    }

    /// The IMU settings for the sensor service.
    public static func imuServiceConfig(_ c: DaemonConfig) -> IMUServiceConfig {
        IMUServiceConfig(sampleRate: Double(c.imuRateHz),
                         accelRange: AccelRange(fullScale: Double(c.imuAccelRangeG)) ?? .g8,
                         gyroRange: GyroRange(fullScale: Double(c.imuGyroRangeDps)) ?? .dps1000)
    }
}
