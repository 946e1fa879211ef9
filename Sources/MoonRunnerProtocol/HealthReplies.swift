import MoonRunnerCore

// The health words of `STATUS`. Like every enumerated field of a reply, each
// decodes only the values this build knows: any other fails the decoding with
// an error naming it, which the client reports as an unreadable reply, and is
// never taken for a guess. Only a daemon newer than its client can send one,
// and the package ships the daemon and its clients together.

/// How a sensor does, as `STATUS.imu`, `.baro` and `.hr` say it.
public enum SensorHealth: String, Sendable, Codable, CaseIterable {
    /// None configured (`imu.source: none`, no barometer, no strap).
    case none
    /// Data flowing, no recent faults.
    case ok
    /// Data flowing with recent faults, or a part it needs missing and being retried.
    case degraded
    /// No data: the device does not answer, or a replay ended.
    case lost
}

/// Health of the GPS side in `STATUS`.
public struct GPSStatus: Codable, Sendable, Equatable {
    /// gpsd's side: the daemon's link to it and its fix.
    public enum Health: String, Sendable, Codable, CaseIterable {
        /// Not yet connected to gpsd.
        case connecting
        /// Connected, gpsd reports no fix (mode < 2).
        case noFix = "nofix"
        /// Fixes are arriving.
        case ok
        /// gpsd is gone or silent for more than 5 s.
        case lost
    }

    public var health: Health
    /// The seed app's signal grades from the horizontal accuracy.
    public var grade: SignalGrade
    /// Fixes received since the daemon started.
    public var fixes: Int
    /// gpsd (re)connections since the daemon started.
    public var connects: Int

    public init(health: Health, grade: SignalGrade, fixes: Int, connects: Int) {
        self.health = health
        self.grade = grade
        self.fixes = fixes
        self.connects = connects
    }
}

/// Health of the IMU side in `STATUS`.
public struct IMUStatus: Codable, Sendable, Equatable {
    public var health: SensorHealth
    public var samples: Int
    /// Samples refused as implausible.
    public var rejected: Int
    public var busErrors: Int
    public var overflows: Int
    /// FIFO resets (overflow, stuck or misaligned count) and device re-initialisations.
    public var fifoResets: Int
    public var reinitializations: Int
    /// The part found: "MPU-6050 at 0x68 on /dev/i2c-1" (or the replayed file); null before the
    /// first initialisation, so that a wearer sees the bus and the chip answered (since protocol 1.6).
    @NullCoded public var device: String?
    /// The last fault, e.g. "initialisation failed: WHO_AM_I 0x42 ...".
    @NullCoded public var lastError: String?

    public init(health: SensorHealth, samples: Int, rejected: Int, busErrors: Int, overflows: Int,
                fifoResets: Int = 0, reinitializations: Int = 0, device: String? = nil, lastError: String? = nil) {
        self.health = health
        self.samples = samples
        self.rejected = rejected
        self.busErrors = busErrors
        self.overflows = overflows
        self.fifoResets = fifoResets
        self.reinitializations = reinitializations
        self.device = device
        self.lastError = lastError
    }

    enum CodingKeys: String, CodingKey {
        case health, samples, rejected, busErrors = "bus_errors", overflows, fifoResets = "fifo_resets",
             reinitializations, device, lastError = "last_error"
    }
}

/// Health of the barometer side in `STATUS`.
public struct BaroStatus: Codable, Sendable, Equatable {
    public var health: SensorHealth
    /// Readings used by the altitude fusion.
    public var samples: Int
    /// Readings refused: impossible pressure, out of order, frozen.
    public var rejected: Int
    /// Pressure jumps faster than anyone climbs, absorbed without a climb (a sealed case opened).
    public var levelShifts: Int
    public var busErrors: Int
    /// Device re-initialisations (after bus errors, a foreign chip id or stuck readings).
    public var reinitializations: Int
    /// "BMP280 at 0x76 on /dev/i2c-1", null before the first initialisation.
    @NullCoded public var device: String?
    /// The last fault, e.g. "readings stuck at 98241.2 Pa for 2 s; re-initialising".
    @NullCoded public var lastError: String?

    public init(health: SensorHealth, samples: Int = 0, rejected: Int = 0, levelShifts: Int = 0, busErrors: Int = 0,
                reinitializations: Int = 0, device: String? = nil, lastError: String? = nil) {
        self.health = health
        self.samples = samples
        self.rejected = rejected
        self.levelShifts = levelShifts
        self.busErrors = busErrors
        self.reinitializations = reinitializations
        self.device = device
        self.lastError = lastError
    }

    /// No barometer configured.
    public static let none = BaroStatus(health: .none)

    enum CodingKeys: String, CodingKey {
        case health, samples, rejected, levelShifts = "level_shifts", busErrors = "bus_errors", reinitializations,
             device, lastError = "last_error"
    }
}

/// The heart-rate strap's side in `STATUS` (since protocol 1.2).
public struct HeartRateStatus: Codable, Sendable, Equatable {
    /// `degraded`: no bluetoothd, adapter or power, being retried.
    public var health: SensorHealth
    /// The strap: "Polar H10 (AA:BB:CC:DD:EE:FF)", a replayed file; null before one was found.
    @NullCoded public var device: String?
    /// Notifications received, and those that could not be read (too short, an RR list past the payload).
    public var notifications: Int
    public var malformed: Int
    /// Readings taken as heart rates, without one (no contact, 0), refused (outside 25–250 bpm).
    public var samples: Int
    public var missing: Int
    public var rejected: Int
    /// R–R intervals kept, and refused (outside 200–2500 ms).
    public var rrIntervals: Int
    public var rrRejected: Int
    /// Connections to the strap that delivered notifications.
    public var connects: Int
    /// The last fault, e.g. "bluetoothd is not on the system bus".
    @NullCoded public var lastError: String?

    public init(health: SensorHealth, device: String? = nil, notifications: Int = 0, malformed: Int = 0, samples: Int = 0,
                missing: Int = 0, rejected: Int = 0, rrIntervals: Int = 0, rrRejected: Int = 0, connects: Int = 0,
                lastError: String? = nil) {
        self.health = health
        self.device = device
        self.notifications = notifications
        self.malformed = malformed
        self.samples = samples
        self.missing = missing
        self.rejected = rejected
        self.rrIntervals = rrIntervals
        self.rrRejected = rrRejected
        self.connects = connects
        self.lastError = lastError
    }

    /// No strap configured.
    public static let none = HeartRateStatus(health: .none)

    enum CodingKeys: String, CodingKey {
        case health, device, notifications, malformed, samples, missing, rejected, rrIntervals = "rr_intervals",
             rrRejected = "rr_rejected", connects, lastError = "last_error"
    }
}

/// Health of the store in `STATUS`.
public struct StoreStatus: Codable, Sendable, Equatable {
    public enum Health: String, Sendable, Codable, CaseIterable {
        case ok
        /// Commits fail (held and retried) or the journal cannot be taken in.
        case error
    }

    public var health: Health
    /// Rows waiting for the next commit.
    public var pending: Int
    @NullCoded public var lastError: String?

    public init(health: Health, pending: Int, lastError: String?) {
        self.health = health
        self.pending = pending
        self.lastError = lastError
    }

    enum CodingKeys: String, CodingKey { case health, pending, lastError = "last_error" }
}
