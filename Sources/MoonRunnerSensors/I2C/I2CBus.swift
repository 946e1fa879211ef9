/// A failed I²C transfer, typed so that callers can tell "nobody answers" (NACK) from a
/// glitch (EIO) from a configuration problem (open failed) and react differently.
public enum I2CError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `open(2)` on the bus device failed (missing module, permissions, wrong number).
    case openFailed(path: String, errno: Int32)
    /// `ioctl(I2C_SLAVE)` refused the address (e.g. EBUSY when a kernel driver owns it).
    case addressRejected(address: UInt8, errno: Int32)
    /// The device did not acknowledge: absent, unpowered or wrong address.
    case nack(address: UInt8)
    /// Generic I/O error on the wire (EIO): noise, clock stretching gone wrong, brown-out.
    case eio
    /// The adapter timed out (ETIMEDOUT).
    case timeout
    /// Fewer bytes came back than asked for.
    case shortRead(expected: Int, got: Int)
    /// Any other errno from the adapter.
    case io(errno: Int32)
    /// The bus was closed or no address was selected.
    case notReady

    public var description: String {
        switch self {
        case let .openFailed(path, code): return "cannot open \(path): \(I2CError.errnoDetail(code))"
        case let .addressRejected(address, code):
            return "cannot select I2C address \(I2CError.hex(address)): \(I2CError.errnoDetail(code))"
        case let .nack(address): return "no acknowledge from I2C address \(I2CError.hex(address)) (device absent?)"
        case .eio: return "I2C I/O error (EIO)"
        case .timeout: return "I2C transfer timed out"
        case let .shortRead(expected, got): return "I2C short read: \(got) of \(expected) bytes"
        case let .io(code): return "I2C error: \(I2CError.errnoDetail(code))"
        case .notReady: return "I2C bus not open"
        }
    }

    static func hex(_ v: UInt8) -> String {
        let digits = String(v, radix: 16)
        return "0x" + (digits.count < 2 ? "0" + digits : digits)
    }

    static func errnoDetail(_ code: Int32) -> String {
        "\(MoonRunnerSystem.errnoText(code)) (errno \(code))"
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MoonRunnerSystem

/// The register-level bus protocol that IMU drivers are written against.
///
/// Kept to the three operations a register-mapped sensor needs, so that the same driver
/// code runs over `/dev/i2c-N` and over the register-level emulator in tests and replay.
/// Implementations are classes (they own a file descriptor or shared emulator state)
/// and must be safe to call from the IMU thread while a test pokes at them.
public protocol I2CBus: AnyObject, Sendable {
    /// Addresses the device at the 7-bit `address` for the following transfers.
    func select(address: UInt8) throws(I2CError)
    /// Reads `buffer.count` consecutive registers starting at `register` (auto-increment).
    func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError)
    /// Reads `buffer.count` bytes from one streaming register (a FIFO port): every chunk
    /// the adapter needs starts again at `register` instead of advancing.
    func readStream(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError)
    /// Writes one register.
    func writeRegister(_ register: UInt8, value: UInt8) throws(I2CError)
    /// Writes `bytes` from `register` on in one transfer: a 16-bit register (a fuel
    /// gauge's, a current monitor's) takes its two bytes, most significant first,
    /// and accepts no other way of writing them.
    func writeRegisters(_ register: UInt8, bytes: UnsafeRawBufferPointer) throws(I2CError)
}

extension I2CBus {
    /// Devices of 8-bit registers that auto-increment (the IMU's, the barometers')
    /// take a multi-byte write as one write per register.
    public func writeRegisters(_ register: UInt8, bytes: UnsafeRawBufferPointer) throws(I2CError) {
        for (i, b) in bytes.enumerated() {
            try writeRegister(register &+ UInt8(truncatingIfNeeded: i), value: b)
        }
    }

    /// Reads one register.
    public func readRegister(_ register: UInt8) throws(I2CError) -> UInt8 {
        var value: UInt8 = 0
        try withUnsafeMutableBytes(of: &value) { (raw) throws(I2CError) in
            try readRegisters(register, into: raw)
        }
        return value
    }
}
