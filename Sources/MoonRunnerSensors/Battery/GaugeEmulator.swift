import MoonRunnerCore
import Synchronization

/// The chip-specific part of an emulated battery gauge: its registers, and
/// what it measures of the cell at an instant.
public protocol GaugeChip: Sendable {
    init(model: GaugeModel)
    var model: GaugeModel { get }
    /// The register that names the chip (a foreign value for the `chipid` fault).
    var identityRegister: UInt8 { get }
    /// The 16-bit register holding the byte at `address` (a pointer into the
    /// chip's map), and whether that byte is its high one.
    func word(at address: UInt8, offset: Int) -> (register: UInt8, high: Bool)
    /// A register's value with the cell as `cell` says at `t` (reading may clear flags).
    mutating func read(_ register: UInt8, cell: CellModel, at t: Double, jumped: Bool) -> UInt16
    /// Writes a register.
    mutating func write(_ register: UInt8, _ value: UInt16)
}

/// Counters the emulator keeps about what the driver did to it.
public struct GaugeEmulatorStats: Sendable, Equatable {
    public var transactions = 0
    public var writes = 0
    public var injectedFaults = 0
}

/// A register-level battery gauge on an emulated I²C bus, measuring a
/// `CellModel` that drains on the clock it is given (the engine clock in the
/// daemon, a stepped one in tests). The cell's time starts at the first
/// transfer. Faults can be injected from any thread: a NACK (unplugged, or a
/// gauge powered by a cell gone flat), frozen readings, and a jump of the
/// reported charge away from the cell's.
public final class GaugeEmulator<Chip: GaugeChip>: I2CBus, FaultInjectableDevice {
    public let address: UInt8
    private let now: @Sendable () -> Double
    private let state: Mutex<GaugeEmulatorState<Chip>>

    public init(model: GaugeModel, address: UInt8, cell: CellModel, clock now: @escaping @Sendable () -> Double) {
        self.address = address
        self.now = now
        state = Mutex(GaugeEmulatorState(chip: Chip(model: model), cell: cell))
    }

    public var model: GaugeModel { state.withLock { $0.chip.model } }
    var identityRegister: UInt8 { state.withLock { $0.chip.identityRegister } }

    // MARK: I2CBus

    public func select(address: UInt8) throws(I2CError) {
        state.withLock { $0.selected = address }
    }

    public func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        let t = now()
        try state.withLock { (s) throws(I2CError) in
            try s.begin(at: t, address: address, isRead: true)
            var words: [UInt8: UInt16] = [:]
            for i in 0..<buffer.count {
                let (reg, high) = s.chip.word(at: register, offset: i)
                let value: UInt16
                if let w = words[reg] {
                    value = w
                } else {
                    value = s.value(reg, at: t)
                    words[reg] = value
                }
                buffer[i] = high ? UInt8(value >> 8) : UInt8(value & 0xFF)
            }
        }
    }

    public func readStream(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        try readRegisters(register, into: buffer)
    }

    /// A single byte is no write to a 16-bit register: the chips ignore it.
    public func writeRegister(_ register: UInt8, value: UInt8) throws(I2CError) {
        let t = now()
        try state.withLock { (s) throws(I2CError) in try s.begin(at: t, address: address, isRead: false) }
    }

    public func writeRegisters(_ register: UInt8, bytes: UnsafeRawBufferPointer) throws(I2CError) {
        let t = now()
        try state.withLock { (s) throws(I2CError) in
            try s.begin(at: t, address: address, isRead: false)
            guard bytes.count >= 2 else { return }
            s.stats.writes += 1
            s.chip.write(register, UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        }
    }

    // MARK: Faults (thread-safe)

    /// false: the gauge stops acknowledging: every transfer NACKs.
    public var isPresent: Bool {
        get { state.withLock { $0.present } }
        set { state.withLock { $0.present = newValue } }
    }

    /// The next `count` read transactions fail with `error`.
    public func failNextReads(_ count: Int, with error: I2CError = .eio) {
        state.withLock { $0.readFaults = count; $0.readFaultError = error }
    }

    /// Freezes the measurements where they are (true) or lets them follow the cell again.
    public func setDataStuck(_ stuck: Bool) {
        let t = now()
        state.withLock { $0.frozenAt = stuck ? ($0.frozenAt ?? t) : nil }
    }

    /// Makes the reported charge jump far from the cell's (true) or come back.
    public func setJumped(_ jumped: Bool) {
        state.withLock { $0.jumped = jumped }
    }

    func forceOverflow() {}

    /// The cell the gauge measures (for tests: its charge at any time).
    public var cell: CellModel { state.withLock { $0.cell } }

    /// Changes the cell's load from now on (a charger plugged in: negative).
    public func setLoad(_ amperes: Double) {
        let t = now()
        state.withLock { s in
            s.cell.startPercent = s.cell.percent(at: t)
            s.cell.start = t
            s.cell.load = amperes
        }
    }

    public var stats: GaugeEmulatorStats { state.withLock { $0.stats } }
}

/// Everything behind the emulator's lock.
struct GaugeEmulatorState<Chip: GaugeChip> {
    var chip: Chip
    var cell: CellModel
    var selected: UInt8?
    var present = true
    var readFaults = 0
    var readFaultError = I2CError.eio
    /// Measurements frozen at this instant (the `stuck` fault).
    var frozenAt: Double?
    var jumped = false
    var stats = GaugeEmulatorStats()

    mutating func begin(at t: Double, address: UInt8, isRead: Bool) throws(I2CError) {
        stats.transactions += 1
        guard let selected else { throw .notReady }
        guard present, selected == address else { throw .nack(address: selected) }
        if cell.start == nil { cell.start = t }
        if isRead, readFaults > 0 {
            readFaults -= 1
            stats.injectedFaults += 1
            throw readFaultError
        }
    }

    mutating func value(_ register: UInt8, at t: Double) -> UInt16 {
        chip.read(register, cell: cell, at: frozenAt ?? t, jumped: jumped)
    }
}
