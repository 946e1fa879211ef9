import Foundation
import MoonRunnerCore

/// The daemon's configuration: every key of `config/moonrunner.yaml`, with
/// the defaults documented there.
public struct DaemonConfig: Sendable, Equatable {
    public var gpsdHost = "127.0.0.1"
    public var gpsdPort = 2947
    /// `none` (GPS only), `i2c:/dev/i2c-1@0x68` or `replay:FILE[,speed=N][,loop]`.
    public var imuSource = "i2c:/dev/i2c-1@0x68"
    public var imuRateHz = 100
    public var imuAccelRangeG = 8
    public var imuGyroRangeDps = 1000
    /// `none`, `i2c:/dev/i2c-1@0x76` or `replay:FILE[,speed=N][,loop]`.
    public var baroSource = "none"
    /// The terrain tiles' folder (`elevation.dem_dir`); empty: no terrain model.
    public var demDir = "/var/lib/moonrunner/dem"
    /// `none`, `ble:auto`, `ble:AA:BB:CC:DD:EE:FF` or `replay:FILE[,speed=N]`.
    public var hrSource = "none"
    /// The wearer, for zones, training load and calories from heart rate (`body_mass_kg` is the mass).
    public var hrZoneModel = HeartRateProfile.ZoneModel.max
    public var hrZoneBounds: [Double] = [60, 70, 80, 90]
    public var hrMaxBPM: Double?
    public var hrRestingBPM = 60.0
    public var hrAge = 35.0
    public var hrSex = HeartRateProfile.Sex.unspecified
    public var stateDir = "/var/lib/moonrunner"
    public var socketPath = "/run/moonrunner/moonrunner.sock"
    /// Permission bits of the socket file.
    public var socketMode = 0o660
    /// Members of this group (besides root and the daemon's user) may change state.
    public var controlGroup = "moonrunner"
    public var maxLineBytes = 4096
    public var maxClients = 64
    public var idleTimeout = 600.0
    public var maxRequestsPerSecond = 50
    public var commitInterval = 2.0
    /// Seconds commits stay in the journal before the database takes them in
    /// (fewer, larger writes: gentle on an SD card). A session's end always does.
    public var consolidateInterval = 1800.0
    /// A session left open by a crash is resumed if the daemon is back within this many seconds.
    public var recoveryWindow = 600.0
    /// Sessions older than this many days are deleted; 0 keeps everything.
    public var retentionDays = 0
    /// Megabytes of raw IMU samples to keep as a diagnostic trace; 0 (default) keeps none.
    public var rawIMUCaptureMB = 0.0
    public var defaultActivity = Activity.run
    public var units = UnitSystem.metric
    public var bodyMassKg = 70.0
    public var detector = StepDetectorKind.adaptive
    public var gpsMaxAccuracy = 30.0
    public var gpsMaxAge = 10.0
    public var gpsMaxSpeed = 10.27
    public var autoPauseEnabled = true
    public var autoPauseDwell = 8.0
    public var autoPauseResumeSteps = 2
    public var autoPauseMoveSpeed = 1.2
    public var autoPauseGyroThreshold = 2.0
    /// Farther than this from the course is off course, metres.
    public var courseOffDistance = 50.0
    /// `course_to_go` events at these distances to go, metres.
    public var courseToGoAlerts: [Double] = [1000, 500]
    /// Within this many metres of the end the course is finished.
    public var courseFinishDistance = 15.0
    /// Largest course file `?COURSE_ADD` accepts, KiB.
    public var courseMaxUploadKB = 8192
    /// `arrived` within this many metres of the destination.
    public var arriveRadius = 30.0
    /// Command run on every state transition (empty: none).
    public var hookCommand = ""
    public var hookTimeout = 5.0
    public var logLevel = "info"
    public var battery = BatterySettings()

    public init() {}

    /// The pure core's share of the configuration.
    public var engineConfig: EngineConfig {
        var e = EngineConfig()
        e.detector = detector
        e.gps.maxAccuracy = gpsMaxAccuracy
        e.gps.maxAge = gpsMaxAge
        e.gps.maxSpeed = gpsMaxSpeed
        e.autoPause.enabled = autoPauseEnabled
        e.autoPause.pauseDwell = autoPauseDwell
        e.autoPause.resumeSteps = autoPauseResumeSteps
        e.autoPause.moveSpeed = autoPauseMoveSpeed
        e.autoPause.gyroThreshold = autoPauseGyroThreshold
        e.navigation.matcher.offCourseDistance = courseOffDistance
        e.navigation.matcher.finishDistance = courseFinishDistance
        e.navigation.matcher.maxSpeed = gpsMaxSpeed
        e.navigation.toGoAlerts = courseToGoAlerts
        e.navigation.arriveRadius = arriveRadius
        e.heartRate.age = hrAge
        e.heartRate.sex = hrSex
        e.heartRate.bodyMass = bodyMassKg
        e.heartRate.maxBPM = hrMaxBPM
        e.heartRate.restingBPM = hrRestingBPM
        e.heartRate.zoneModel = hrZoneModel
        e.heartRate.zoneBounds = hrZoneBounds
        return e
    }
}
