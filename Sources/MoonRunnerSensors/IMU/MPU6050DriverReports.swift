import MoonRunnerCore

/// Why the driver could not bring the device up or talk to it.
public enum IMUDriverError: Error, Equatable, Sendable, CustomStringConvertible {
    case bus(I2CError)
    /// Something answered but is not an MPU-6050/6500/9250.
    case unknownDevice(whoAmI: UInt8, address: UInt8)
    /// A configuration register did not read back what was written.
    case configurationMismatch(register: UInt8, wrote: UInt8, read: UInt8)
    case notInitialized

    public var description: String {
        switch self {
        case let .bus(e): return e.description
        case let .unknownDevice(who, address):
            let known = MPU6050Model.allCases.map { "\(I2CError.hex($0.whoAmI)) (\($0))" }.joined(separator: ", ")
            return "device at \(I2CError.hex(address)) answered WHO_AM_I \(I2CError.hex(who)); expected one of \(known)"
        case let .configurationMismatch(reg, wrote, read):
            return "register \(I2CError.hex(reg)) reads back \(I2CError.hex(read)) after writing \(I2CError.hex(wrote))"
        case .notInitialized: return "IMU not initialised"
        }
    }
}

extension IMUDriverError: BusDriverError {
    var busError: I2CError? { if case let .bus(e) = self { e } else { nil } }
}

/// What the driver is asked to set up.
public struct MPU6050Config: Sendable, Equatable {
    /// 7-bit address: 0x68 (AD0 low) or 0x69 (AD0 high).
    public var address: UInt8
    /// Requested output rate in Hz; the device gets the nearest 1000/(1+div).
    public var sampleRate: Double
    public var accelRange: AccelRange
    public var gyroRange: GyroRange
    /// false: accelerometer-only FIFO (6-byte frames), gyro in standby, NaN rotation rate.
    public var gyroEnabled: Bool

    public init(address: UInt8 = 0x68, sampleRate: Double = 100, accelRange: AccelRange = .g8,
                gyroRange: GyroRange = .dps1000, gyroEnabled: Bool = true) {
        self.address = address
        self.sampleRate = sampleRate
        self.accelRange = accelRange
        self.gyroRange = gyroRange
        self.gyroEnabled = gyroEnabled
    }
}

/// Why a FIFO read did not trust the FIFO and reset it instead.
public enum FIFOAnomaly: Sendable, Equatable, CustomStringConvertible {
    /// INT_STATUS reported FIFO_OFLOW (or the count reached capacity): oldest data lost.
    case overflow(count: Int)
    /// FIFO_COUNT is not a whole number of frames: the stream lost its frame alignment.
    case partialFrame(count: Int)
    /// FIFO_COUNT disagrees with the sample clock (stuck count, sleeping or reset device).
    case implausibleCount(count: Int, expectedFrames: Int)
    /// Frames read back as one repeated byte: the FIFO was read past its end.
    case garbageFrames(Int)

    public var description: String {
        switch self {
        case let .overflow(count): return "FIFO overflow (count \(count))"
        case let .partialFrame(count): return "FIFO count \(count) is not a whole number of frames"
        case let .implausibleCount(count, expected):
            return "FIFO count \(count) bytes disagrees with the sample clock (\(expected) frames due)"
        case let .garbageFrames(n): return "\(n) FIFO frames read back as a repeated byte"
        }
    }
}

/// The outcome of one `readFIFO` call.
public struct FIFOReadReport: Sendable, Equatable {
    /// Samples appended to the caller's array.
    public var samples = 0
    /// Set when the FIFO was not trusted and was reset instead of read.
    public var anomaly: FIFOAnomaly?
    /// Samples the device produced that will never be delivered (estimated from time).
    public var lostSamples = 0
    /// Seconds the sample clock was re-anchored by (oscillator drift or start phase).
    public var clockCorrection = 0.0

    public init() {}
}
