import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors

/// Health of the input adapters, sampled for `STATUS`.
public struct InputHealth: Sendable {
    public var gps = GPSStatus(health: GPSHealth.connecting.rawValue, grade: SignalGrade.none.rawValue, fixes: 0, connects: 0)
    public var imu = IMUStatus(health: "lost", samples: 0, rejected: 0, busErrors: 0, overflows: 0)
    /// The barometer service's side (`none` without one); the fusion's counters are added in `STATUS`.
    public var baro = BaroStatus.none
    /// The heart-rate strap's side (`none` without one); the engine's counters are added in `STATUS`.
    public var hr = HeartRateStatus.none
    public var hrState = HeartRateLinkState.none
    public init() {}
}

// The sensor services' own status, as `STATUS` reports it: the service's side
// only (the engine's counts are added by `LiveStatus`).

extension IMUStatus {
    /// No IMU configured (`imu.source: none`).
    static let none = IMUStatus(health: "none", samples: 0, rejected: 0, busErrors: 0, overflows: 0)

    /// Re-initialisations do not count the first initialisation.
    init(_ s: IMUServiceStatus) {
        self.init(health: s.health.rawValue, samples: s.counters.samples, rejected: s.counters.rejected,
                  busErrors: s.counters.busErrors, overflows: s.counters.overflows, fifoResets: s.counters.fifoResets,
                  reinitializations: max(0, s.counters.initializations - 1), device: s.device,
                  lastError: s.lastError)
    }
}

extension BaroStatus {
    /// Re-initialisations do not count the first initialisation.
    init(_ s: BaroServiceStatus) {
        self.init(health: s.health.rawValue, busErrors: s.counters.busErrors,
                  reinitializations: max(0, s.counters.initializations - 1), device: s.device, lastError: s.lastError)
    }
}

extension HeartRateStatus {
    /// The source's side of `STATUS.hr`.
    init(_ s: HeartRateSourceStatus) {
        self.init(health: s.health, device: s.device, notifications: s.notifications, malformed: s.malformed,
                  connects: s.connects, lastError: s.lastError)
    }
}
