import MoonRunnerCore
import Synchronization

/// Counters the emulator keeps about what the driver did to it (for tests and logs).
public struct MPU6050EmulatorStats: Sendable, Equatable {
    public var transactions = 0
    public var deviceResets = 0
    public var fifoResets = 0
    /// Samples taken while awake (whether or not the FIFO stored them).
    public var samplesTaken = 0
    /// Frames pushed into the FIFO.
    public var framesQueued = 0
    public var overflows = 0
    public var injectedFaults = 0
}

/// A register-level MPU-6050/6500/9250 on an emulated I²C bus, fed by a
/// recorded trace: what the real driver talks to in tests and in `make run`
/// without hardware, so it models what the driver relies on: reset values,
/// WHO_AM_I, the sleep bit, the sample clock (gyro rate / (1 + SMPLRT_DIV),
/// 8 kHz with the DLPF off), saturating full scales, the FIFO (register-order
/// big-endian frames, 1024 bytes on the 6050, overflow dropping the oldest
/// bytes and raising INT_STATUS.FIFO_OFLOW, FIFO_COUNT latched by its high
/// byte, FIFO_R_W repeating when empty) and INT_STATUS clearing on read.
///
/// Time is virtual (`now()`), so a test gets the same bytes every run. The
/// trace starts when the FIFO first fills (on the receiver's clock with
/// `receiverOffset`) and runs on whatever the driver does; faults from any thread.
public final class MPU6050Emulator: I2CBus {
    public let model: MPU6050Model
    /// The address the device answers at (0x68, or 0x69 with AD0 high).
    public let address: UInt8
    private let now: @Sendable () -> Double
    private let state: Mutex<EmulatorState>

    /// - Parameters:
    ///   - source: the trace to play; nil gives a device lying still, flat (1 g on z).
    ///   - reopen: when given, the trace loops: called to start it again at its end.
    public init(model: MPU6050Model = .mpu6050, address: UInt8 = 0x68,
                clock now: @escaping @Sendable () -> Double,
                source: sending (any IMUSampleSource)? = nil,
                reopen: (@Sendable () throws -> any IMUSampleSource)? = nil,
                resampling: TraceResampling = .linear,
                receiverOffset: (@Sendable () -> Double?)? = nil) {
        self.model = model
        self.address = address
        self.now = now
        let playback = TracePlayback(source: source, reopen: reopen, resampling: resampling, anchor: receiverOffset)
        state = Mutex(EmulatorState(model: model, address: address, playback: playback))
    }

    /// Convenience: plays an in-memory trace.
    public convenience init(model: MPU6050Model = .mpu6050, address: UInt8 = 0x68,
                            clock now: @escaping @Sendable () -> Double,
                            samples: [IMUSample], loop: Bool = false,
                            resampling: TraceResampling = .linear) {
        self.init(model: model, address: address, clock: now, source: ArraySampleSource(samples),
                  reopen: loop ? { @Sendable in ArraySampleSource(samples) } : nil, resampling: resampling)
    }

    // MARK: - I2CBus

    public func select(address: UInt8) throws(I2CError) {
        state.withLock { $0.selected = address }
    }

    public func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        let t = now()
        try state.withLock { (s) throws(I2CError) in
            try s.beginTransaction(at: t, isRead: true)
            var reg = register
            for i in 0..<buffer.count {
                buffer[i] = s.readByte(reg, at: t)
                // The FIFO port does not auto-increment: a burst keeps draining the FIFO.
                if reg != MPU6050Register.fifoRW { reg &+= 1 }
            }
        }
    }

    public func readStream(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        let t = now()
        try state.withLock { (s) throws(I2CError) in
            try s.beginTransaction(at: t, isRead: true)
            for i in 0..<buffer.count {
                buffer[i] = s.readByte(register, at: t)
            }
        }
    }

    public func writeRegister(_ register: UInt8, value: UInt8) throws(I2CError) {
        let t = now()
        try state.withLock { (s) throws(I2CError) in
            try s.beginTransaction(at: t, isRead: false)
            s.writeByte(register, value, at: t)
        }
    }

    // MARK: - Fault injection (thread-safe)

    /// The next `count` read transactions fail with `error`.
    public func failNextReads(_ count: Int, with error: I2CError = .eio) {
        state.withLock { s in
            s.readFaults = count
            s.readFaultError = error
        }
    }

    /// The next `count` write transactions fail with `error`.
    public func failNextWrites(_ count: Int, with error: I2CError = .eio) {
        state.withLock { s in
            s.writeFaults = count
            s.writeFaultError = error
        }
    }

    /// false: the device stops acknowledging (unplugged, unpowered): every transfer NACKs.
    public var isPresent: Bool {
        get { state.withLock { $0.present } }
        set { state.withLock { $0.present = newValue } }
    }

    /// Makes WHO_AM_I answer something else (nil: the model's own value).
    public var whoAmIOverride: UInt8? {
        get { state.withLock { $0.whoAmIOverride } }
        set { state.withLock { $0.whoAmIOverride = newValue } }
    }

    /// Freezes FIFO_COUNT at its current value (true) or lets it track the FIFO (false).
    public func setFIFOCountStuck(_ stuck: Bool) {
        let t = now()
        state.withLock { s in
            s.advance(to: t)
            s.stuckCount = stuck ? s.fifoCount : nil
        }
    }

    /// Makes FIFO_COUNT read `bytes` whatever the FIFO holds (nil: back to normal).
    public func stickFIFOCount(at bytes: Int?) {
        state.withLock { $0.stuckCount = bytes }
    }

    /// Fills the FIFO past its capacity at the next sample, as if the host had stalled.
    public func forceOverflow() {
        state.withLock { $0.forceOverflow = true }
    }

    // MARK: - Observation

    public var stats: MPU6050EmulatorStats { state.withLock { $0.stats } }

    /// The trace is stamped in UNIX time and waits for the receiver's clock (reads its first sample).
    public var waitsForReceiver: Bool { state.withLock { $0.playback.waitsForReceiver() } }

    /// True once the trace has been played to its end (never with looping). The device
    /// keeps sampling, holding the last value, like a sensor that stopped moving.
    public var isEndOfTrace: Bool { state.withLock { $0.playback.ended } }

    /// Device (clock) time at which the trace's first sample played (the first FIFO sample).
    public var traceStartTime: Double? { state.withLock { $0.playback.startDeviceTime } }

    /// Device (clock) time of the trace's last sample, once the end has been reached.
    public var endOfTraceTime: Double? { state.withLock { $0.playback.endDeviceTime } }

    /// How many of the FIFO's bytes read so far came before, during and after the recording.
    public var fifoBytesRead: FIFOBytesRead { state.withLock { $0.ledger.read } }

    /// A read error from the trace source, if one ended it early.
    public var traceError: String? { state.withLock { $0.playback.error } }

    /// How many times a looping trace has restarted.
    public var traceLoops: Int { state.withLock { $0.playback.loops } }

    /// A register's stored value, without side effects and without advancing time.
    public func peekRegister(_ register: UInt8) -> UInt8 {
        state.withLock { s in
            register == MPU6050Register.whoAmI ? (s.whoAmIOverride ?? s.model.whoAmI) : s.regs[Int(register & 0x7F)]
        }
    }

    /// Bytes in the FIFO at time `now()`.
    public var fifoCount: Int {
        let t = now()
        return state.withLock { s in
            s.advance(to: t)
            return s.fifoCount
        }
    }

    /// The current output rate in Hz (from SMPLRT_DIV and CONFIG).
    public var sampleRate: Double { state.withLock { 1 / $0.samplePeriod } }
}

extension MPU6050Emulator: FaultInjectableDevice {
    var identityRegister: UInt8 { MPU6050Register.whoAmI }

    /// A stuck FIFO: FIFO_COUNT reads 0 whatever the FIFO holds.
    func setDataStuck(_ stuck: Bool) {
        stickFIFOCount(at: stuck ? 0 : nil)
    }
}
