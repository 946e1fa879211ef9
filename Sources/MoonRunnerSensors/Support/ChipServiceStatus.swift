/// Running totals since a chip service (the barometer's, the battery gauge's) started.
public struct ChipServiceCounters: Sendable, Equatable {
    /// Readings delivered.
    public var samples = 0
    /// Failed bus transfers (EIO, NACK, timeouts …; a gauge's unreadable files), during init or reads.
    public var busErrors = 0
    /// Times the readings froze and the device was re-initialised for it.
    public var stuck = 0
    /// Successful (re)initialisations, the first one included.
    public var initializations = 0
    public var initFailures = 0
    /// Batches (a gauge's readings) dropped because the consumer did not keep up.
    public var droppedBatches = 0
    public init() {}
}

/// A snapshot of a chip service, readable from any thread.
public struct ChipServiceStatus: Sendable, Equatable {
    /// `ok`, `degraded` (recent faults, being re-initialised) or `lost`.
    public var health = IMUHealth.lost
    public var counters = ChipServiceCounters()
    /// "BMP280 at 0x76 on /dev/i2c-1"; nil before the first initialisation.
    public var device: String?
    /// The source spec as given (as resolved, for a gauge found by `auto`).
    public var source: String
    public var lastError: String?
    public var lastErrorTime: Double?
    /// A replayed trace has been played to its end (never, for a gauge).
    public var endOfTrace = false
    public var running = false

    public init(source: String) { self.source = source }
}

extension ChipServiceCounters: SensorCounters {}
extension ChipServiceStatus: SensorStatus {}
