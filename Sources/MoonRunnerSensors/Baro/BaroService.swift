import Dispatch
import FoundationEssentials
import Glibc
import MoonRunnerCore

/// Settings of the barometer service.
public struct BaroServiceConfig: Sendable, Equatable {
    /// First and longest wait before re-initialising after a failure (doubles in between).
    public var initialBackoff: Double
    public var maxBackoff: Double
    /// Health stays `degraded` this long after the last fault.
    public var degradedHold: Double
    /// Health becomes `lost` after this long without a reading.
    public var lostAfter: Double
    /// Consecutive failed reads before the device is re-initialised.
    public var maxConsecutiveFaults: Int
    /// Raw words repeated bit for bit this long mean a stuck device (its noise
    /// changes them every measurement): it is re-initialised.
    public var stuckAfter: Double
    /// Readings are handed over in batches this many engine seconds apart.
    public var batchInterval: Double
    /// Engine seconds between reads (at least half the device's measurement
    /// period): one a second, as the fixes come. The device keeps measuring at
    /// its own rate (a BMP280 at 10 Hz with its IIR filter), so each read
    /// takes a filtered value; reading every measurement would wake the CPU
    /// twenty times a second for the last centimetres of noise.
    public var readInterval: Double
    /// Batches kept for a slow consumer before the oldest are dropped (and counted).
    public var bufferedBatches: Int

    public init(initialBackoff: Double = 0.5, maxBackoff: Double = 8, degradedHold: Double = 5, lostAfter: Double = 2,
                maxConsecutiveFaults: Int = 3, stuckAfter: Double = 2, batchInterval: Double = 0.5,
                bufferedBatches: Int = 600, readInterval: Double = 1) {
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.degradedHold = degradedHold
        self.lostAfter = lostAfter
        self.maxConsecutiveFaults = maxConsecutiveFaults
        self.stuckAfter = stuckAfter
        self.batchInterval = batchInterval
        self.bufferedBatches = bufferedBatches
        self.readInterval = readInterval
    }

    var recovery: DeviceRecovery.Policy {
        .init(initialBackoff: initialBackoff, maxBackoff: maxBackoff, degradedHold: degradedHold,
              lostAfter: lostAfter, maxConsecutiveFaults: maxConsecutiveFaults)
    }
}

/// The barometer service's totals and snapshot: those every chip service
/// keeps (`ChipServiceStatus`).
public typealias BaroServiceCounters = ChipServiceCounters
public typealias BaroServiceStatus = ChipServiceStatus

/// What the service hands the daemon every `batchInterval`: readings in time order.
public struct BaroBatch: Sendable {
    public var samples: [BaroSample]
    public var health: IMUHealth
}

/// Runs a barometer driver on its own thread and hands readings to the daemon.
///
/// Like `IMUService`: the bus is blocking C, so the driver polls on a
/// dedicated thread at twice the device's measurement rate (each measurement
/// is delivered once, stamped with the engine time it was read at), and
/// nothing a sensor does can stop it: bus errors, a foreign chip id and
/// frozen readings are counted, the device is re-initialised with
/// exponential back-off, and health plus counters can be read at any time.
/// The thread keeps the service alive until `stop()`: always stop it.
public final class BaroService: Sendable {
    public let batches: AsyncStream<BaroBatch>
    /// A replay recorded on the receiver's clock: it starts once that is known.
    public let waitsForReceiver: Bool
    public let config: BaroServiceConfig

    private let continuation: AsyncStream<BaroBatch>.Continuation
    private let openBus: @Sendable () throws(I2CError) -> any I2CBus
    private let address: UInt8
    private let clock: IMUClock
    private let deviceLabel: String
    private let traceEnd: @Sendable () -> Double?
    private let shared: SensorStatusBox<BaroServiceStatus>
    private let thread = SensorThread()
    private let held = BatchHold<BaroBatch>()

    /// The daemon's entry point: nil for `none`. Throws `TraceFileError` at once
    /// when a replay file cannot be read (a configuration mistake, not a sensor fault).
    public static func make(spec: BaroSourceSpec, config: BaroServiceConfig = BaroServiceConfig(),
                            clock: IMUClock) throws -> BaroService? {
        switch spec {
        case .none:
            return nil
        case let .i2c(path, address):
            return BaroService(bus: { () throws(I2CError) -> any I2CBus in try LinuxI2CBus(path: path) },
                               address: address, config: config, clock: clock, source: spec.description,
                               deviceLabel: "at \(I2CError.hex(address)) on \(path)")
        case let .replay(path, _, loop, faults):
            let trace = try BaroTraceReader.readAll(path: path)
            let emulator = BMP280Emulator(clock: clock.now, trace: trace, loop: loop, receiverOffset: clock.receiverOffset)
            let bus: any I2CBus = faults.isEmpty ? emulator : ScheduledFaultBus(device: emulator, plan: faults, clock: clock.now)
            return BaroService(bus: { () throws(I2CError) -> any I2CBus in bus }, address: emulator.address,
                               config: config, clock: clock, source: spec.description,
                               deviceLabel: "(emulated) replaying \(path)", traceEnd: { emulator.endOfTraceTime },
                               waitsForReceiver: (trace.first?.t ?? 0) > TracePlayback.absoluteAfter)
        }
    }

    /// Any bus: `bus` is called (on the service thread) whenever the bus has to be opened.
    public init(bus: @escaping @Sendable () throws(I2CError) -> any I2CBus, address: UInt8,
                config: BaroServiceConfig = BaroServiceConfig(), clock: IMUClock, source: String,
                deviceLabel: String = "", traceEnd: @escaping @Sendable () -> Double? = { nil },
                waitsForReceiver: Bool = false) {
        self.waitsForReceiver = waitsForReceiver
        openBus = bus
        self.address = address
        self.config = config
        self.clock = clock
        self.deviceLabel = deviceLabel
        self.traceEnd = traceEnd
        shared = SensorStatusBox(BaroServiceStatus(source: source))
        (batches, continuation) = AsyncStream.makeStream(of: BaroBatch.self,
                                                         bufferingPolicy: .bufferingNewest(max(1, config.bufferedBatches)))
    }

    public func start() {
        shared.update { $0.running = true }
        if !thread.start(name: "moonrunner-baro", { [self] in self.run() }) {
            shared.update { $0.running = false }
        }
    }

    /// Stops the thread and waits (at most `timeout` seconds) for it; the batch stream then finishes.
    public func stop(timeout: Double = 5) {
        if !thread.stop(timeout: timeout) { continuation.finish() }
    }

    public var status: BaroServiceStatus { shared.value }

    // MARK: - The thread

    /// What the thread keeps between reads.
    private struct Poll {
        var device: SensorDevice<any BarometerDriver>
        var stuck: StuckReadings
        /// Readings not yet handed over.
        var pending: [BaroSample] = []
        var lastFlush: Double
        /// The health the last batch carried.
        var lastHealth: IMUHealth?
        /// Brought up, then put to sleep because no session needs it.
        var parked = false
    }

    private var stopRequested: Bool { thread.stopRequested }

    private func pause(_ seconds: Double, once: Bool = false) {
        thread.pause(seconds, clock: clock, step: 0.05, once: once)
    }

    private func run() {
        var p = Poll(device: SensorDevice(openBus: openBus, policy: config.recovery, clock: clock),
                     stuck: StuckReadings(stuckAfter: config.stuckAfter), lastFlush: clock.now())
        p.pending.reserveCapacity(64)
        while !stopRequested {
            if p.device.ended {
                thread.waitForStop()
                continue
            }
            if !thread.isWanted, p.parked || p.device.driver != nil {
                park(&p)
                continue
            }
            p.parked = false
            if p.device.driver == nil {
                if let wait = p.device.recovery.wait(at: clock.now()) {
                    pause(wait)
                    continue
                }
                guard attach(&p) else { continue }
            }
            guard let d = p.device.driver else { continue }
            let period = d.measurementPeriod
            measure(d, &p)
            let t = clock.now()
            if let end = traceEnd(), t > end + period {
                endTrace(after: end + period, &p, at: t)
                continue
            }
            flush(&p, at: t)
            pause(max(period / 2, config.readInterval), once: true)
        }
        p.device.driver?.sleepDevice()
        flush(&p, at: clock.now(), force: !p.pending.isEmpty)
        shared.update { $0.running = false }
        continuation.finish()
        thread.finish()
    }

    /// No session needs the barometer: what was read is handed over, the
    /// device sleeps and the thread blocks until a session does (see `IMUService`).
    private func park(_ p: inout Poll) {
        if p.device.driver != nil {
            flush(&p, at: clock.now(), force: !p.pending.isEmpty)
            p.device.release()?.sleepDevice()
            p.parked = true
            shared.update { $0.health = .ok }
        }
        thread.waitUntilWanted()
    }

    /// Whether a session needs the readings (the daemon says so); the thread parks while not.
    public func want(_ wanted: Bool) {
        thread.want(wanted)
    }

    /// Finds and initialises the device (opening the bus first if it has to); false when that failed.
    private func attach(_ p: inout Poll) -> Bool {
        do throws(BaroDriverError) {
            let d = try p.device.initialize { (bus: any I2CBus) throws(BaroDriverError) -> any BarometerDriver in
                let d = try BarometerProbe.driver(bus: bus, address: address, clock: clock)
                try d.initialize()
                return d
            }
            // A new device's readings are watched afresh.
            p.stuck = StuckReadings(stuckAfter: config.stuckAfter)
            let label = "\(d.model.map { "\($0)" } ?? "barometer") \(deviceLabel)"
            shared.update {
                $0.counters.initializations += 1
                $0.device = label
            }
            return true
        } catch {
            let t = clock.now()
            p.device.initializationFailed(error, at: t, status: shared)
            flush(&p, at: t)
            return false
        }
    }

    /// One read: a new measurement kept, a frozen device or too many failures re-initialised.
    private func measure(_ d: any BarometerDriver, _ p: inout Poll) {
        do throws(BaroDriverError) {
            let reading = try d.read()
            p.device.recovery.readSucceeded()
            let t = clock.now()
            guard let r = reading else { return }
            switch p.stuck.check(pressure: r.rawPressure, temperature: r.rawTemperature, at: t) {
            case .fresh:
                p.device.recovery.delivered(at: t)
                p.pending.append(BaroSample(t: t, pressure: r.pressure, temperature: r.temperature))
                shared.update { $0.counters.samples += 1 }
            case .repeated:
                break
            case .stuck:
                p.device.recovery.fault(at: t)
                shared.update { $0.counters.stuck += 1 }
                shared.noteFault("readings stuck at \(r.pressure) Pa for \(Int(config.stuckAfter)) s; re-initialising", at: t)
                p.device.drop(at: t)
            }
        } catch {
            let t = clock.now()
            let tooMany = p.device.recovery.readFailed(at: t)
            if case .bus = error { shared.update { $0.counters.busErrors += 1 } }
            shared.noteFault("\(error)", at: t)
            if tooMany || error == .deviceReset {
                shared.noteFault("re-initialising after: \(error)", at: t)
                p.device.drop(at: t)
            }
        }
    }

    /// The replayed recording is over: what was read past `cutoff` goes, the rest is
    /// handed over with the end, and the device sleeps (the emulated device keeps measuring).
    private func endTrace(after cutoff: Double, _ p: inout Poll, at t: Double) {
        p.pending.removeAll { $0.t > cutoff }
        p.device.ended = true
        shared.noteFault("end of trace", at: t)
        shared.update { $0.endOfTrace = true }
        flush(&p, at: t, force: true)
        p.device.release()?.sleepDevice()
    }

    /// Hands the pending readings over every `batchInterval`, at once when the health changed or `force`d.
    private func flush(_ p: inout Poll, at t: Double, force: Bool = false) {
        let h = p.device.health(at: t)
        shared.update { $0.health = h }
        guard force || h != p.lastHealth || t - p.lastFlush >= config.batchInterval else { return }
        guard !p.pending.isEmpty || h != p.lastHealth || force else { return }
        let urgent = force || h != p.lastHealth
        p.lastHealth = h
        p.lastFlush = t
        let batch = BaroBatch(samples: p.pending, health: h)
        p.pending.removeAll(keepingCapacity: true)
        // Held (see `hold`): the stream only rings when the batches waited long enough.
        if held.isEnabled, !held.keep(batch, at: t, urgent: urgent) { return }
        if case .dropped = continuation.yield(held.isEnabled ? BaroBatch(samples: [], health: h) : batch) {
            shared.update { $0.counters.droppedBatches += 1 }
        }
    }

    /// From now on batches wait (up to `seconds` of engine time) for `takeHeld()` (see `IMUService.hold`).
    public func hold(upTo seconds: Double) {
        held.enable(hold: seconds)
    }

    /// The batches held since the last call, oldest first.
    public func takeHeld() -> [BaroBatch] {
        held.take()
    }
}

