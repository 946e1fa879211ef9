import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors

/// The sensors' batches held for the session service (`IMUService.hold`), oldest first.
public struct HeldInputs: Sendable {
    public var imu: [IMUBatch]
    public var baro: [BaroBatch]
}

/// Health of the input adapters, sampled for `STATUS`.
public struct InputHealth: Sendable {
    public var gps = GPSStatus(health: .connecting, grade: SignalGrade.none, fixes: 0, connects: 0)
    public var imu = IMUStatus(health: .lost, samples: 0, rejected: 0, busErrors: 0, overflows: 0)
    /// The barometer service's side (`none` without one); the fusion's counters are added in `STATUS`.
    public var baro = BaroStatus.none
    /// The heart-rate strap's side (`none` without one); the engine's counters are added in `STATUS`.
    public var hr = HeartRateStatus.none
    public var hrState = HeartRateLinkState.none
    /// The battery service's side (nil without a gauge); the monitor's figures are added in `STATUS`.
    public var battery: BatteryServiceStatus?
    private var heartRateLink = HeartRateLinkWatch()
    public init() {}

    /// The adapters' side as the daemon's heartbeat reads it. The strap's
    /// state and health stay as its stream last said (`heartRateChanged`), so
    /// the two are never taken from different moments; its counters are taken.
    mutating func refresh(_ r: AdapterReadings) {
        gps.health = GPSStatus.Health(r.gps)
        gps.connects = r.gpsConnects
        imu = r.imu
        if let b = r.baro { baro = b }
        battery = r.battery
        if let h = r.heartRate {
            var status = HeartRateStatus(h)
            status.health = hr.health
            hr = status
        }
    }

    /// The strap's link and health changed (its source's stream, in order):
    /// `hr_state` and `hr.health` come from this one snapshot, so they never
    /// disagree. The event a change of link is (`hr_connected`, `hr_lost`), if any.
    mutating func heartRateChanged(_ s: HeartRateSourceStatus) -> SessionEventKind? {
        hr = HeartRateStatus(s)
        guard s.state != hrState else { return nil }
        hrState = s.state
        return heartRateLink.update(s.state)
    }
}

/// What the daemon's heartbeat reads of the adapters once a second.
public struct AdapterReadings: Sendable {
    /// gpsd's connection health and (re)connections.
    public var gps: GPSHealth
    public var gpsConnects: Int
    /// `IMUStatus.none` without an IMU.
    public var imu: IMUStatus
    /// Nil without a barometer, or a heart-rate strap.
    public var baro: BaroStatus?
    public var heartRate: HeartRateSourceStatus?
    /// Nil without a gauge.
    public var battery: BatteryServiceStatus?
}

// The sensor services' own status, as `STATUS` reports it: the service's side
// only (the engine's counts are added by `LiveStatus`).

extension IMUStatus {
    /// No IMU configured (`imu.source: none`).
    static let none = IMUStatus(health: .none, samples: 0, rejected: 0, busErrors: 0, overflows: 0)

    /// Re-initialisations do not count the first initialisation.
    init(_ s: IMUServiceStatus) {
        self.init(health: SensorHealth(s.health), samples: s.counters.samples, rejected: s.counters.rejected,
                  busErrors: s.counters.busErrors, overflows: s.counters.overflows, fifoResets: s.counters.fifoResets,
                  reinitializations: max(0, s.counters.initializations - 1), device: s.device,
                  lastError: s.lastError)
    }
}

extension BaroStatus {
    /// Re-initialisations do not count the first initialisation.
    init(_ s: BaroServiceStatus) {
        self.init(health: SensorHealth(s.health), busErrors: s.counters.busErrors,
                  reinitializations: max(0, s.counters.initializations - 1), device: s.device, lastError: s.lastError)
    }
}

extension HeartRateStatus {
    /// The source's side of `STATUS.hr`.
    init(_ s: HeartRateSourceStatus) {
        self.init(health: SensorHealth(s.health), device: s.device, notifications: s.notifications, malformed: s.malformed,
                  connects: s.connects, lastError: s.lastError)
    }
}

extension GPSStatus.Health {
    init(_ h: GPSHealth) {
        switch h {
        case .connecting: self = .connecting
        case .noFix: self = .noFix
        case .ok: self = .ok
        case .lost: self = .lost
        }
    }
}

extension SensorHealth {
    /// A sensor service's health (one is configured: never `none`).
    init(_ h: IMUHealth) {
        switch h {
        case .ok: self = .ok
        case .degraded: self = .degraded
        case .lost: self = .lost
        }
    }
}
