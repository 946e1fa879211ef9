import Logging

/// What the journal says of the devices: a line when one's health or fault changes.
///
/// The heartbeat samples each device's status once a second; logging every
/// sample would fill the journal, logging nothing leaves a wearer who reads
/// `journalctl -u moonrunnerd` blind to why the IMU, gpsd or the strap
/// stopped. A change of health is logged at once (a warning when it is
/// degraded or lost, a notice when it is back); the first fault under a
/// health at once, a different one at most once a minute, since some carry
/// counts that change with every retry. Time comes in from outside.
struct DeviceHealthLog {
    /// Seconds between two lines of the same health with different faults.
    static let repeatAfter = 60.0

    private struct Seen {
        var health: String
        var fault: String?
        var loggedAt: Double
    }
    private var seen: [String: Seen] = [:]

    struct Line: Equatable {
        var level: Logger.Level
        var message: String
    }

    /// Logs what changed of each adapter the heartbeat read.
    mutating func observe(_ r: AdapterReadings, at now: Double, to logger: Logger) {
        observe("gps", health: r.gps.rawValue, fault: nil, at: now, to: logger)
        observe("imu", health: r.imu.health.rawValue, fault: r.imu.lastError, found: r.imu.device, at: now, to: logger)
        if let b = r.baro {
            observe("barometer", health: b.health.rawValue, fault: b.lastError, found: b.device, at: now, to: logger)
        }
        if let h = r.heartRate {
            observe("heart-rate strap", health: h.health.rawValue, fault: h.lastError, found: h.device, at: now,
                    to: logger)
        }
    }

    /// Logs the line `decide` gives, if any.
    mutating func observe(_ device: String, health: String, fault: String?, found: String? = nil, at now: Double,
                          to logger: Logger) {
        if let line = decide(device, health: health, fault: fault, found: found, at: now) {
            logger.log(level: line.level, "\(line.message)")
        }
    }

    /// The line to log for `device` now, if any.
    mutating func decide(_ device: String, health: String, fault: String?, found: String? = nil,
                         at now: Double) -> Line? {
        let before = seen[device]
        if let before, before.health == health {
            guard fault != before.fault, let fault,
                  before.fault == nil || now - before.loggedAt >= Self.repeatAfter else { return nil }
            seen[device] = Seen(health: health, fault: fault, loggedAt: now)
            return Line(level: .warning, message: "\(device): \(health): \(fault)")
        }
        // The first sample of a device that starts well, or was never configured, says nothing.
        if before == nil && (health == "ok" || health == "none" || health == "connecting") {
            seen[device] = Seen(health: health, fault: fault, loggedAt: -.infinity)
            return health == "ok" ? found.map { Line(level: .notice, message: "\(device): ok (\($0))") } : nil
        }
        seen[device] = Seen(health: health, fault: fault, loggedAt: now)
        switch health {
        case "ok": return Line(level: .notice, message: "\(device): ok" + (found.map { " (\($0))" } ?? ""))
        case "none", "connecting", "searching": return Line(level: .info, message: "\(device): \(health)")
        default: return Line(level: .warning, message: "\(device): \(health)" + (fault.map { ": \($0)" } ?? ""))
        }
    }
}
