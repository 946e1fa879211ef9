import Foundation
import MoonRunnerConfig
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
        let baro = try baroSpec(c)
        if case let .replay(path, _, _, _) = baro, !FileManager.default.isReadableFile(atPath: path) {
            throw ConfigError(key: "baro.source", value: c.baroSource, allowed: "a readable barometer trace file (\(path) is not)")
        }
        let hr = try hrSpec(c)
        if case let .replay(path, _) = hr, !FileManager.default.isReadableFile(atPath: path) {
            throw ConfigError(key: "hr.source", value: c.hrSource, allowed: "a readable heart-rate trace file (\(path) is not)")
        }
        if c.hrZoneModel != .bpm, let top = c.hrZoneBounds.last, top > 100 {
            throw ConfigError(key: "hr.zone_bounds", value: "\(c.hrZoneBounds)",
                              allowed: "percentages up to 100 with hr.zone_model \(c.hrZoneModel.rawValue) (or hr.zone_model: bpm)")
        }
        let maximum = c.engineConfig.heartRate.maximum
        if maximum <= c.hrRestingBPM + 10 {
            throw ConfigError(key: c.hrMaxBPM == nil ? "hr.age" : "hr.max_bpm", value: "\(maximum)",
                              allowed: "a maximum heart rate at least 10 bpm above hr.resting_bpm (\(c.hrRestingBPM))")
        }
        _ = try replaySpeed(c)
        _ = try batterySpec(c)
    }

    /// The parsed `battery.source`.
    public static func batterySpec(_ c: DaemonConfig) throws(ConfigError) -> BatterySourceSpec {
        do {
            return try BatterySourceSpec.parse(c.battery.source)
        } catch {
            throw ConfigError(key: "battery.source", value: c.battery.source, allowed: error.reason)
        }
    }

    /// The parsed `hr.source`.
    public static func hrSpec(_ c: DaemonConfig) throws(ConfigError) -> HeartRateSourceSpec {
        do {
            return try HeartRateSourceSpec.parse(c.hrSource)
        } catch {
            throw ConfigError(key: "hr.source", value: c.hrSource, allowed: error.reason)
        }
    }

    /// The parsed `baro.source`.
    public static func baroSpec(_ c: DaemonConfig) throws(ConfigError) -> BaroSourceSpec {
        do {
            return try BaroSourceSpec.parse(c.baroSource)
        } catch {
            throw ConfigError(key: "baro.source", value: c.baroSource, allowed: error.reason)
        }
    }

    /// The speed of the daemon's engine clock: a replay's, one for live sensors.
    /// Two replays must agree, since both are paced on the one clock.
    public static func replaySpeed(_ c: DaemonConfig) throws(ConfigError) -> Double {
        let imu = try imuSpec(c), baro = try baroSpec(c)
        if case .replay = imu, case .replay = baro, imu.speed != baro.speed {
            throw ConfigError(key: "baro.source", value: c.baroSource,
                              allowed: "the same replay speed as imu.source (speed=\(imu.speed)); both run on one clock")
        }
        let hr = try hrSpec(c)
        var others: [Double] = []
        if case .replay = imu { others.append(imu.speed) }
        if case .replay = baro { others.append(baro.speed) }
        if case .replay = hr, let other = others.first, other != hr.speed {
            throw ConfigError(key: "hr.source", value: c.hrSource,
                              allowed: "the same replay speed as the other replays (speed=\(other)); all run on one clock")
        }
        if case .replay = baro { return baro.speed }
        if case .replay = imu { return imu.speed }
        return hr.speed
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
