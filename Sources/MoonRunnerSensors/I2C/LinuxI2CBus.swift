import CI2C
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `I2CBus` over a Linux `/dev/i2c-N` character device and libi2c's SMBus helpers.
///
/// Deliberately thin: every policy (retries, back-off, plausibility) lives in the driver
/// and the service, which are tested against the emulator; this file only turns
/// syscalls into `I2CError`s. SMBus block transfers carry at most 32 bytes, so longer
/// reads are split into chunks.
public final class LinuxI2CBus: I2CBus {
    public let path: String
    private struct State {
        var fd: Int32
        var address: UInt8?
    }
    private let state: Mutex<State>

    /// SMBus I2C-block transfer limit (I2C_SMBUS_BLOCK_MAX).
    static let blockMax = 32

    /// Opens the bus device, e.g. `/dev/i2c-1`.
    public init(path: String) throws(I2CError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 { throw .openFailed(path: path, errno: errno) }
        state = Mutex(State(fd: fd, address: nil))
    }

    deinit {
        state.withLock { s in
            if s.fd >= 0 { close(s.fd) }
            s.fd = -1
        }
    }

    public func select(address: UInt8) throws(I2CError) {
        try state.withLock { (s) throws(I2CError) in
            guard s.fd >= 0 else { throw .notReady }
            if ioctl(s.fd, UInt(I2C_SLAVE), Int32(address)) < 0 {
                throw .addressRejected(address: address, errno: errno)
            }
            s.address = address
        }
    }

    public func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        try read(register, into: buffer, advance: true)
    }

    public func readStream(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        try read(register, into: buffer, advance: false)
    }

    public func writeRegister(_ register: UInt8, value: UInt8) throws(I2CError) {
        try state.withLock { (s) throws(I2CError) in
            guard s.fd >= 0, let address = s.address else { throw .notReady }
            let rc = i2c_smbus_write_byte_data(s.fd, register, value)
            if rc < 0 { throw LinuxI2CBus.error(fromResult: rc, address: address) }
        }
    }

    public func writeRegisters(_ register: UInt8, bytes: UnsafeRawBufferPointer) throws(I2CError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        // One SMBus block transfer carries at most 32 bytes.
        guard bytes.count <= LinuxI2CBus.blockMax else { throw .io(errno: EINVAL) }
        try state.withLock { (s) throws(I2CError) in
            guard s.fd >= 0, let address = s.address else { throw .notReady }
            let rc = i2c_smbus_write_i2c_block_data(s.fd, register, UInt8(bytes.count),
                                                    base.assumingMemoryBound(to: UInt8.self))
            if rc < 0 { throw LinuxI2CBus.error(fromResult: rc, address: address) }
        }
    }

    private func read(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer, advance: Bool) throws(I2CError) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        try state.withLock { (s) throws(I2CError) in
            guard s.fd >= 0, let address = s.address else { throw .notReady }
            var offset = 0
            while offset < buffer.count {
                let chunk = min(LinuxI2CBus.blockMax, buffer.count - offset)
                let reg = advance ? register &+ UInt8(truncatingIfNeeded: offset) : register
                let rc = i2c_smbus_read_i2c_block_data(
                    s.fd, reg, UInt8(chunk), (base + offset).assumingMemoryBound(to: UInt8.self))
                if rc < 0 { throw LinuxI2CBus.error(fromResult: rc, address: address) }
                if Int(rc) != chunk { throw .shortRead(expected: chunk, got: Int(rc)) }
                offset += chunk
            }
        }
    }

    /// libi2c returns `-errno` on failure.
    static func error(fromResult rc: Int32, address: UInt8) -> I2CError {
        let code = rc == -1 && errno != 0 && errno != EPERM ? errno : -rc
        switch code {
        case ENXIO, EREMOTEIO: return .nack(address: address)
        case EIO: return .eio
        case ETIMEDOUT: return .timeout
        default: return .io(errno: code)
        }
    }
}
