import MoonRunnerCore

/// The Bosch barometers the daemon drives, by what their chip-id register says.
public enum BarometerModel: String, Sendable, CaseIterable, CustomStringConvertible {
    case bmp280 = "BMP280"
    case bme280 = "BME280"
    case bmp388 = "BMP388"
    case bmp390 = "BMP390"

    public var description: String { rawValue }

    /// Register holding the chip id, and the id, of each part: the BMP280
    /// family keeps it at 0xD0, the BMP3 family at 0x00.
    public var chipIDRegister: UInt8 { isBMP3 ? BMP388Register.chipID : BMP280Register.chipID }
    public var chipID: UInt8 {
        switch self {
        case .bmp280: return 0x58
        case .bme280: return 0x60
        case .bmp388: return 0x50
        case .bmp390: return 0x60
        }
    }

    var isBMP3: Bool { self == .bmp388 || self == .bmp390 }

    /// The model answering `id` at `register`, if any.
    public init?(chipID id: UInt8, at register: UInt8) {
        guard let m = BarometerModel.allCases.first(where: { $0.chipIDRegister == register && $0.chipID == id }) else {
            return nil
        }
        self = m
    }
}

/// Why a barometer driver could not bring its device up or read it.
public enum BaroDriverError: Error, Equatable, Sendable, CustomStringConvertible {
    case bus(I2CError)
    /// Something answered but no known chip id was found.
    case unknownDevice(chipID: UInt8, address: UInt8)
    /// The factory trim read back as nonsense (all zeros or ones, a zero divisor).
    case badCalibration(String)
    /// A configuration register did not read back what was written.
    case configurationMismatch(register: UInt8, wrote: UInt8, read: UInt8)
    /// The device left normal mode by itself (a brown-out reset it).
    case deviceReset
    /// The device flagged an error of its own (BMP3 ERR_REG).
    case deviceError(UInt8)
    case notInitialized

    public var description: String {
        switch self {
        case let .bus(e): return e.description
        case let .unknownDevice(id, address):
            let known = BarometerModel.allCases.map { "\(I2CError.hex($0.chipID)) at \(I2CError.hex($0.chipIDRegister)) (\($0))" }
            return "device at \(I2CError.hex(address)) answered chip id \(I2CError.hex(id)); expected one of "
                + known.joined(separator: ", ")
        case let .badCalibration(why): return "factory trim unusable: \(why)"
        case let .configurationMismatch(reg, wrote, read):
            return "register \(I2CError.hex(reg)) reads back \(I2CError.hex(read)) after writing \(I2CError.hex(wrote))"
        case .deviceReset: return "the barometer left normal mode (reset or brown-out)"
        case let .deviceError(code): return "the barometer reports error \(I2CError.hex(code))"
        case .notInitialized: return "barometer not initialised"
        }
    }
}

extension BaroDriverError: BusDriverError {
    var busError: I2CError? { if case let .bus(e) = self { e } else { nil } }
}

/// One measurement: the raw ADC words as the device gave them (to tell a
/// frozen device from a steady pressure) and their compensated values.
public struct BaroReading: Sendable, Equatable {
    public var rawPressure: UInt32
    public var rawTemperature: UInt32
    /// Pa.
    public var pressure: Double
    /// °C.
    public var temperature: Double
}

/// A barometer driver over any `I2CBus`: reset, trim, configuration, reads.
/// Not thread-safe: one driver belongs to one thread (the barometer service's).
public protocol BarometerDriver: AnyObject {
    /// Known after `initialize()`.
    var model: BarometerModel? { get }
    /// Seconds between two measurements in the configured mode.
    var measurementPeriod: Double { get }
    /// Resets and configures the device; measurements start.
    func initialize() throws(BaroDriverError)
    /// The latest measurement, or nil when the device has not made one yet.
    func read() throws(BaroDriverError) -> BaroReading?
    /// Puts the device to sleep (best effort; used on shutdown).
    func sleepDevice()
}

/// Finds which Bosch barometer answers at `address` and returns its driver.
public enum BarometerProbe {
    public static func driver(bus: any I2CBus, address: UInt8, clock: IMUClock) throws(BaroDriverError) -> any BarometerDriver {
        do { try bus.select(address: address) } catch { throw .bus(error) }
        let bmp3 = try readByte(bus, BMP388Register.chipID)
        if let model = BarometerModel(chipID: bmp3, at: BMP388Register.chipID) {
            return BMP388Driver(bus: bus, address: address, expected: model, clock: clock)
        }
        let bmp2 = try readByte(bus, BMP280Register.chipID)
        if let model = BarometerModel(chipID: bmp2, at: BMP280Register.chipID) {
            return BMP280Driver(bus: bus, address: address, expected: model, clock: clock)
        }
        throw .unknownDevice(chipID: bmp2, address: address)
    }

    static func readByte(_ bus: any I2CBus, _ register: UInt8) throws(BaroDriverError) -> UInt8 {
        do { return try bus.readRegister(register) } catch { throw .bus(error) }
    }
}
