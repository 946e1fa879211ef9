import MoonRunnerCore
import Synchronization

/// The chip-specific part of an emulated Bosch barometer: its registers, its
/// measurement schedule, and how a pressure and temperature become raw words.
public protocol BaroChip: Sendable {
    init(model: BarometerModel, address: UInt8)
    var model: BarometerModel { get }
    /// The register that names the chip.
    var identityRegister: UInt8 { get }
    /// Seconds between measurements in the current mode; nil while asleep.
    var measurementPeriod: Double? { get }
    /// Reads a register (reading may clear flags).
    mutating func read(_ register: UInt8) -> UInt8
    /// Writes a register; says what the write did to the device as a whole.
    mutating func write(_ register: UInt8, _ value: UInt8) -> BaroChipWrite
    /// Takes one measurement of what the sensor feels.
    mutating func measure(pressure: Double, temperature: Double)
    /// Puts these raw words in the data registers as if just measured.
    mutating func setRaw(pressure: UInt32, temperature: UInt32)
}

/// What a register write did beyond the register.
public enum BaroChipWrite: Sendable, Equatable {
    case none
    /// The measurement schedule starts again now (a mode change).
    case restartSchedule
    /// A soft reset: registers back to their reset values; the device does
    /// not answer for this many seconds.
    case reset(busy: Double)
}

/// Counters the emulator keeps about what the driver did to it.
public struct BaroEmulatorStats: Sendable, Equatable {
    public var transactions = 0
    public var resets = 0
    public var measurements = 0
    public var injectedFaults = 0
}

/// A register-level Bosch barometer on an emulated I²C bus, fed by a recorded
/// trace (`t,pressure_pa,temperature_c`) or by nothing (1013.25 hPa, 25 °C).
///
/// Time is virtual, as in the MPU-6050 emulator: every transaction first
/// takes the measurements due by `now()` on the chip's own schedule (standby
/// plus conversion time, or the ODR), so a stepped test clock gets the same
/// bytes every run. The trace starts at the first measurement and then runs
/// with the clock, resampled linearly at each measurement instant. Faults can
/// be injected from any thread while a driver is using it.
public final class BaroEmulator<Chip: BaroChip>: I2CBus, FaultInjectableDevice {
    public let address: UInt8
    private let now: @Sendable () -> Double
    private let state: Mutex<BaroEmulatorState<Chip>>

    /// The chip-specific convenience initialisers (`BMP280Emulator(…)`, `BMP388Emulator(…)`) call this.
    init(chip model: BarometerModel, address: UInt8, clock now: @escaping @Sendable () -> Double,
         trace: [BaroSample], loop: Bool, receiverOffset: (@Sendable () -> Double?)? = nil) {
        self.address = address
        self.now = now
        state = Mutex(BaroEmulatorState(chip: Chip(model: model, address: address),
                                        playback: BaroPlayback(samples: trace, loop: loop, anchor: receiverOffset)))
    }

    public var model: BarometerModel { state.withLock { $0.chip.model } }
    var identityRegister: UInt8 { state.withLock { $0.chip.identityRegister } }

    // MARK: I2CBus

    public func select(address: UInt8) throws(I2CError) {
        state.withLock { $0.selected = address }
    }

    public func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        let t = now()
        try state.withLock { (s) throws(I2CError) in
            try s.begin(at: t, address: address, isRead: true)
            for i in 0..<buffer.count {
                let reg = register &+ UInt8(truncatingIfNeeded: i)
                buffer[i] = reg == s.chip.identityRegister ? (s.identityOverride ?? s.chip.read(reg)) : s.chip.read(reg)
            }
        }
    }

    public func readStream(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        try readRegisters(register, into: buffer)
    }

    public func writeRegister(_ register: UInt8, value: UInt8) throws(I2CError) {
        let t = now()
        try state.withLock { (s) throws(I2CError) in
            try s.begin(at: t, address: address, isRead: false)
            switch s.chip.write(register, value) {
            case .none: break
            case .restartSchedule: s.scheduleOrigin = t; s.lastTick = 0
            case let .reset(busy):
                s.chip = Chip(model: s.chip.model, address: address)
                s.busyUntil = t + busy
                s.stats.resets += 1
            }
        }
    }

    // MARK: Faults (thread-safe)

    /// The next `count` read transactions fail with `error`.
    public func failNextReads(_ count: Int, with error: I2CError = .eio) {
        state.withLock { $0.readFaults = count; $0.readFaultError = error }
    }

    /// false: the device stops acknowledging (unplugged): every transfer NACKs.
    public var isPresent: Bool {
        get { state.withLock { $0.present } }
        set { state.withLock { $0.present = newValue } }
    }

    /// Makes the chip-id register answer something else (nil: the model's own id).
    public var chipIDOverride: UInt8? {
        get { state.withLock { $0.identityOverride } }
        set { state.withLock { $0.identityOverride = newValue } }
    }

    /// Freezes the data registers (true) or lets measurements update them again.
    public func setDataStuck(_ stuck: Bool) {
        state.withLock { $0.stuck = stuck }
    }

    func forceOverflow() {}

    /// Puts raw ADC words in the data registers (and stops measuring over
    /// them): the datasheet's worked example goes through the driver this way.
    public func setRawWords(pressure: UInt32, temperature: UInt32) {
        state.withLock { s in
            s.chip.setRaw(pressure: pressure, temperature: temperature)
            s.stuck = true
        }
    }

    // MARK: Observation

    public var stats: BaroEmulatorStats { state.withLock { $0.stats } }
    /// Device time of the trace's last reading, once the end has been reached.
    public var endOfTraceTime: Double? { state.withLock { $0.playback.endDeviceTime } }
    /// Device time at which the trace's first reading played.
    public var traceStartTime: Double? { state.withLock { $0.playback.startDeviceTime } }
}

/// Everything behind the emulator's lock.
struct BaroEmulatorState<Chip: BaroChip> {
    var chip: Chip
    var playback: BaroPlayback
    var selected: UInt8?
    var present = true
    var identityOverride: UInt8?
    var stuck = false
    var busyUntil = -Double.infinity
    var readFaults = 0
    var readFaultError = I2CError.eio
    var scheduleOrigin = 0.0
    var lastTick = 0
    var stats = BaroEmulatorStats()

    /// How many of the measurements due after a long gap are still taken (the
    /// IIR filter forgets older ones long before this).
    static var catchUp: Int { 64 }

    mutating func begin(at t: Double, address: UInt8, isRead: Bool) throws(I2CError) {
        stats.transactions += 1
        guard let selected else { throw .notReady }
        guard present, selected == address, t >= busyUntil else { throw .nack(address: selected) }
        if isRead, readFaults > 0 {
            readFaults -= 1
            stats.injectedFaults += 1
            throw readFaultError
        }
        advance(to: t)
    }

    /// Takes every measurement due by `t`: at scheduleOrigin + k·period, k ≥ 1.
    mutating func advance(to t: Double) {
        guard let period = chip.measurementPeriod, period > 0 else { return }
        let due = Int(((t - scheduleOrigin) / period + 1e-9).rounded(.down))
        guard due > lastTick else { return }
        let first = max(lastTick + 1, due - Self.catchUp + 1)
        for k in first...due {
            let tick = scheduleOrigin + Double(k) * period
            let (p, temperature) = playback.reading(at: tick)
            stats.measurements += 1
            if !stuck { chip.measure(pressure: p, temperature: temperature) }
            // A forced measurement puts the chip back to sleep.
            if chip.measurementPeriod == nil { break }
        }
        lastTick = due
    }
}

/// Plays a barometer trace against the device clock: the first reading at the
/// first measurement, then trace time and device time advance together; after
/// the end the last reading holds (or the trace starts again with `loop`).
/// A trace stamped in UNIX time and played with an `anchor` is on the
/// receiver's clock instead (as the IMU's, see `TracePlayback`): the reading at
/// time `x` is felt when the receiver's time is `x`, the first one until then.
struct BaroPlayback: Sendable {
    let samples: [BaroSample]
    let loop: Bool
    /// Receiver time minus device time, once known.
    let anchor: (@Sendable () -> Double?)?
    private var offset = 0.0
    private var index = 0
    private(set) var startDeviceTime: Double?
    private(set) var endDeviceTime: Double?
    /// A device with no trace feels standard sea-level air at 25 °C.
    static let resting = (pressure: BarometricAltitude.seaLevelPressure, temperature: 25.0)

    init(samples: [BaroSample], loop: Bool, anchor: (@Sendable () -> Double?)? = nil) {
        self.samples = samples
        self.loop = loop
        self.anchor = anchor
    }

    mutating func reading(at t: Double) -> (pressure: Double, temperature: Double) {
        guard let first = samples.first, let last = samples.last else { return Self.resting }
        if let anchor, startDeviceTime == nil, first.t > TracePlayback.absoluteAfter {
            guard let receiverOffset = anchor(), t + receiverOffset >= first.t else {
                return (first.pressure, first.temperature.isFinite ? first.temperature : 25)
            }
            startDeviceTime = first.t - receiverOffset
            offset = receiverOffset
        }
        if startDeviceTime == nil {
            startDeviceTime = t
            offset = first.t - t
        }
        var x = t + offset
        if x > last.t {
            guard loop, samples.count > 1 else {
                if endDeviceTime == nil { endDeviceTime = last.t - offset }
                return (last.pressure, last.temperature)
            }
            let span = last.t - first.t + (samples[1].t - first.t)
            while x > last.t { x -= span; offset -= span }
            index = 0
        }
        while index + 1 < samples.count && samples[index + 1].t <= x { index += 1 }
        let a = samples[index]
        guard index + 1 < samples.count, x > a.t else { return (a.pressure, a.temperature) }
        let b = samples[index + 1]
        let w = (x - a.t) / (b.t - a.t)
        let temperature = a.temperature.isFinite && b.temperature.isFinite
            ? a.temperature + (b.temperature - a.temperature) * w : 25
        return (a.pressure + (b.pressure - a.pressure) * w, temperature)
    }
}
