import MoonRunnerCore

/// How well a sensor is doing (the IMU, the barometer, the heart-rate strap),
/// as the daemon reports it.
public enum IMUHealth: String, Sendable, Equatable, CaseIterable {
    /// Data flowing, no recent faults.
    case ok
    /// Data flowing, but bus errors, overflows or resets happened recently.
    case degraded
    /// No data: the device cannot be initialised, stopped answering, or the trace ended.
    case lost
}

/// Running totals since the service started.
public struct IMUCounters: Sendable, Equatable {
    /// Samples delivered.
    public var samples = 0
    /// Failed bus transfers (EIO, NACK, timeouts …), during init or streaming.
    public var busErrors = 0
    /// FIFO overflows (samples lost because the FIFO was not read in time).
    public var overflows = 0
    /// FIFO resets for any reason (overflow, lost alignment, stuck or implausible count).
    public var fifoResets = 0
    /// Successful device (re)initialisations, the first one included.
    public var initializations = 0
    /// Failed initialisation attempts.
    public var initFailures = 0
    /// Samples the device produced that were never delivered (estimated from time).
    public var lostSamples = 0
    /// Samples read but thrown away as implausible.
    public var rejected = 0
    /// Batches dropped because the consumer did not keep up.
    public var droppedBatches = 0

    public init() {}
}

/// A snapshot of the IMU service, readable at any time from any thread.
public struct IMUServiceStatus: Sendable, Equatable {
    public var health: IMUHealth = .lost
    public var counters = IMUCounters()
    /// "MPU-6050 at 0x68 on /dev/i2c-1", or the replayed file; nil before the first init.
    public var device: String?
    /// The source spec as given.
    public var source: String
    /// Output rate the device was configured to (Hz).
    public var sampleRate: Double
    /// Whether samples carry a rotation rate.
    public var hasGyro: Bool
    /// The most recent fault, for humans.
    public var lastError: String?
    /// Engine time of that fault.
    public var lastErrorTime: Double?
    /// A replayed trace has been played to its end (the daemon keeps running).
    public var endOfTrace = false
    public var running = false

    public init(source: String, sampleRate: Double, hasGyro: Bool) {
        self.source = source
        self.sampleRate = sampleRate
        self.hasGyro = hasGyro
    }
}

/// What the service hands the daemon after each FIFO read: the samples in time order
/// (one array per read, never per sample) and the health at that moment.
public struct IMUBatch: Sendable {
    public var samples: [IMUSample]
    public var health: IMUHealth
    /// Samples lost just before this batch (overflow, reset): a gap in the timestamps.
    public var lostBefore: Int
    /// Set on the last batch of a replayed trace.
    public var endOfTrace: Bool

    public init(samples: [IMUSample], health: IMUHealth, lostBefore: Int = 0, endOfTrace: Bool = false) {
        self.samples = samples
        self.health = health
        self.lostBefore = lostBefore
        self.endOfTrace = endOfTrace
    }
}
