/// Register addresses and bits of the InvenSense MPU-6050 family, shared by the driver
/// and the emulator so that both sides speak exactly the same map.
///
/// Checked against RM-MPU-6000A-00 rev 4.2 (MPU-6000/6050 register map) and, for the
/// 6500/9250 differences, RM-MPU-6500A / RM-MPU-9250A.
public enum MPU6050Register {
    public static let smplrtDiv: UInt8 = 0x19      // 25: sample rate = gyro rate / (1 + div)
    public static let config: UInt8 = 0x1A         // 26: EXT_SYNC_SET[5:3], DLPF_CFG[2:0]
    public static let gyroConfig: UInt8 = 0x1B     // 27: FS_SEL[4:3]
    public static let accelConfig: UInt8 = 0x1C    // 28: AFS_SEL[4:3]
    public static let accelConfig2: UInt8 = 0x1D   // 29 on 6500/9250: A_DLPF_CFG[2:0]
    public static let fifoEnable: UInt8 = 0x23     // 35: TEMP 7, XG 6, YG 5, ZG 4, ACCEL 3
    public static let intEnable: UInt8 = 0x38      // 56
    public static let intStatus: UInt8 = 0x3A      // 58: FIFO_OFLOW_INT 4, DATA_RDY_INT 0; clears on read
    public static let accelXoutH: UInt8 = 0x3B     // 59..64 accel, 65..66 temp, 67..72 gyro
    public static let tempOutH: UInt8 = 0x41
    public static let gyroXoutH: UInt8 = 0x43
    public static let signalPathReset: UInt8 = 0x68 // 104
    public static let userCtrl: UInt8 = 0x6A       // 106: FIFO_EN 6, FIFO_RESET 2, SIG_COND_RESET 0
    public static let pwrMgmt1: UInt8 = 0x6B       // 107: DEVICE_RESET 7, SLEEP 6, CYCLE 5, CLKSEL[2:0]; reset 0x40
    public static let pwrMgmt2: UInt8 = 0x6C       // 108: STBY_XA..STBY_ZG [5:0]
    public static let fifoCountH: UInt8 = 0x72     // 114: reading H latches H and L
    public static let fifoCountL: UInt8 = 0x73     // 115
    public static let fifoRW: UInt8 = 0x74         // 116: FIFO data port (no auto-increment)
    public static let whoAmI: UInt8 = 0x75         // 117: reset 0x68 on the 6050
}

/// Bit values used with `MPU6050Register`.
public enum MPU6050Bits {
    public static let deviceReset: UInt8 = 0x80    // PWR_MGMT_1
    public static let sleep: UInt8 = 0x40          // PWR_MGMT_1
    public static let cycle: UInt8 = 0x20          // PWR_MGMT_1
    public static let clockPLLGyroX: UInt8 = 0x01  // PWR_MGMT_1 CLKSEL = 1
    public static let clockStop: UInt8 = 0x07      // PWR_MGMT_1 CLKSEL = 7
    public static let standbyGyro: UInt8 = 0x07    // PWR_MGMT_2 STBY_XG|YG|ZG
    public static let userFIFOEnable: UInt8 = 0x40 // USER_CTRL
    public static let userFIFOReset: UInt8 = 0x04  // USER_CTRL
    public static let userSigCondReset: UInt8 = 0x01
    public static let fifoTemp: UInt8 = 0x80       // FIFO_EN
    public static let fifoGyroX: UInt8 = 0x40
    public static let fifoGyroY: UInt8 = 0x20
    public static let fifoGyroZ: UInt8 = 0x10
    public static let fifoAccel: UInt8 = 0x08
    public static let fifoGyro: UInt8 = 0x70
    public static let intFIFOOverflow: UInt8 = 0x10 // INT_STATUS
    public static let intDataReady: UInt8 = 0x01
}

/// The supported members of the family, told apart by WHO_AM_I.
public enum MPU6050Model: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case mpu6050 = 0x68
    case mpu6500 = 0x70
    case mpu9250 = 0x71

    public init?(whoAmI: UInt8) { self.init(rawValue: whoAmI) }

    public var whoAmI: UInt8 { rawValue }

    /// FIFO size in bytes: 1024 on the 6050, 512 on the 6500/9250.
    public var fifoCapacity: Int { self == .mpu6050 ? 1024 : 512 }

    /// The 6500/9250 have a separate accelerometer low-pass filter (ACCEL_CONFIG2).
    public var hasAccelDLPF: Bool { self != .mpu6050 }

    public var description: String {
        switch self {
        case .mpu6050: return "MPU-6050"
        case .mpu6500: return "MPU-6500"
        case .mpu9250: return "MPU-9250"
        }
    }
}

/// Accelerometer full scale (AFS_SEL).
public enum AccelRange: UInt8, Sendable, CaseIterable {
    case g2 = 0, g4 = 1, g8 = 2, g16 = 3

    /// Full scale in g.
    public var fullScale: Double { Double(2 << Int(rawValue)) }
    /// Sensitivity in LSB per g (16384 at ±2 g, halving per step).
    public var lsbPerG: Double { 16384 / Double(1 << Int(rawValue)) }
    /// ACCEL_CONFIG value.
    public var registerValue: UInt8 { rawValue << 3 }

    /// The smallest range covering `g` (so ±8 g asks for .g8); nil above ±16 g.
    public init?(fullScale g: Double) {
        guard let r = AccelRange.allCases.first(where: { $0.fullScale >= g - 1e-9 }) else { return nil }
        self = r
    }
}

/// Gyroscope full scale (FS_SEL).
public enum GyroRange: UInt8, Sendable, CaseIterable {
    case dps250 = 0, dps500 = 1, dps1000 = 2, dps2000 = 3

    /// Full scale in °/s.
    public var fullScale: Double { 250 * Double(1 << Int(rawValue)) }
    /// Sensitivity in LSB per °/s as the register map states it (131, 65.5, 32.8, 16.4).
    public var lsbPerDegreePerSecond: Double {
        switch self {
        case .dps250: return 131
        case .dps500: return 65.5
        case .dps1000: return 32.8
        case .dps2000: return 16.4
        }
    }
    /// Sensitivity in LSB per rad/s.
    public var lsbPerRadianPerSecond: Double { lsbPerDegreePerSecond * 180 / Double.pi }
    /// GYRO_CONFIG value (FCHOICE_B = 0 on the 6500/9250, so the DLPF is used).
    public var registerValue: UInt8 { rawValue << 3 }

    /// The smallest range covering `dps`; nil above ±2000 °/s.
    public init?(fullScale dps: Double) {
        guard let r = GyroRange.allCases.first(where: { $0.fullScale >= dps - 1e-9 }) else { return nil }
        self = r
    }
}

/// Sample-rate divider and low-pass filter derived from a requested output rate.
///
/// With the DLPF enabled (DLPF_CFG 1…6) the gyro output rate is 1 kHz, so
/// rate = 1000 / (1 + SMPLRT_DIV): 3.9…1000 Hz. The filter is the widest one whose
/// bandwidth stays below half the sample rate, so the FIFO stream is not aliased.
public struct MPU6050RateSettings: Sendable, Equatable {
    public var divider: UInt8
    public var dlpf: UInt8
    /// The rate the device will really produce (Hz).
    public var sampleRate: Double
    public var period: Double { 1 / sampleRate }

    /// Gyro output rate with the DLPF enabled.
    public static let gyroOutputRate = 1000.0
    /// Gyro bandwidth (Hz) of DLPF_CFG 1…6 on the 6050 (RM-MPU-6000A register 26).
    public static let dlpfBandwidths: [(cfg: UInt8, hz: Double)] = [
        (1, 188), (2, 98), (3, 42), (4, 20), (5, 10), (6, 5),
    ]

    public init(divider: UInt8, dlpf: UInt8) {
        self.divider = divider
        self.dlpf = dlpf
        let outputRate = (dlpf == 0 || dlpf == 7) ? 8000.0 : MPU6050RateSettings.gyroOutputRate
        sampleRate = outputRate / (1 + Double(divider))
    }

    /// Settings for `rate` Hz (clamped to 3.9…1000 Hz).
    public init(rate: Double) {
        let requested = rate.isFinite ? min(max(rate, 1000.0 / 256), 1000) : 100
        // The nearest reachable rate: one of the two dividers around 1000/rate − 1.
        let exact = MPU6050RateSettings.gyroOutputRate / requested - 1
        let candidates = [exact.rounded(.down), exact.rounded(.up)].map { min(max($0, 0), 255) }
        let best = candidates.min {
            abs(MPU6050RateSettings.gyroOutputRate / (1 + $0) - requested)
                < abs(MPU6050RateSettings.gyroOutputRate / (1 + $1) - requested)
        } ?? 9
        let divider = UInt8(best)
        let actual = MPU6050RateSettings.gyroOutputRate / (1 + Double(divider))
        let nyquist = actual / 2
        let dlpf = MPU6050RateSettings.dlpfBandwidths.first(where: { $0.hz <= nyquist })?.cfg ?? 6
        self.init(divider: divider, dlpf: dlpf)
    }
}
