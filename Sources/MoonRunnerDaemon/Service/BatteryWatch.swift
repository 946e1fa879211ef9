import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors

/// The battery as the session service keeps it: the core's monitor over the
/// gauge's readings, what its alarms ask of the session, and `STATUS.battery`.
/// A pure value; the service does what it says.
struct BatteryWatch: Sendable {
    private(set) var monitor: BatteryMonitor
    let settings: BatterySettings

    /// What a reading asks the session service to do.
    enum Action: Equatable, Sendable {
        /// Tell the wearer: a `battery_low` event with the charge, percent.
        case warn(percent: Double)
        /// Stop the session (cause `battery`) and save it.
        case stopSession
        /// Then ask logind to power off, after `battery.poweroff_delay_s`.
        case powerOff
    }

    init(settings: BatterySettings) {
        self.settings = settings
        monitor = BatteryMonitor(policy: settings.policy)
    }

    /// Takes a reading; what to do about it, in order. A session is stopped
    /// at any reading while the cell is critical, not only at the alarm: one
    /// started on a flat cell is stopped and saved at once.
    mutating func take(_ reading: BatteryReading, sessionActive: Bool) -> [Action] {
        var actions: [Action] = []
        var critical = false
        for alarm in monitor.take(reading) {
            switch alarm {
            case let .low(_, percent):
                actions.append(.warn(percent: percent))
            case .critical:
                critical = true
            }
        }
        if sessionActive && monitor.isCritical { actions.append(.stopSession) }
        if critical && settings.powerOff { actions.append(.powerOff) }
        return actions
    }

    /// `STATUS.battery`: nil without a gauge.
    func status(_ service: BatteryServiceStatus?) -> BatteryStatusReply? {
        guard let service else { return nil }
        let s = monitor.state
        func finite(_ v: Double?) -> Double? { v.flatMap { $0.isFinite ? $0 : nil } }
        return BatteryStatusReply(health: SensorHealth(service.health), percent: finite(s?.percent),
                                  volts: finite(s?.volts), currentA: finite(s?.current), charging: s?.charging,
                                  minutesLeft: finite(s?.minutesLeft), critical: monitor.policy.critical.description,
                                  source: service.source, device: service.device, readings: service.counters.samples,
                                  jumps: monitor.jumps, busErrors: service.counters.busErrors,
                                  reinitializations: max(0, service.counters.initializations - 1),
                                  lastError: service.lastError)
    }
}
