import Dispatch
import FoundationEssentials
import Glibc
import MoonRunnerCore
import Synchronization

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
    /// Batches kept for a slow consumer before the oldest are dropped (and counted).
    public var bufferedBatches: Int

    public init(initialBackoff: Double = 0.5, maxBackoff: Double = 8, degradedHold: Double = 5, lostAfter: Double = 2,
                maxConsecutiveFaults: Int = 3, stuckAfter: Double = 2, batchInterval: Double = 0.5,
                bufferedBatches: Int = 600) {
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.degradedHold = degradedHold
        self.lostAfter = lostAfter
        self.maxConsecutiveFaults = maxConsecutiveFaults
        self.stuckAfter = stuckAfter
        self.batchInterval = batchInterval
        self.bufferedBatches = bufferedBatches
    }

    var recovery: DeviceRecovery.Policy {
        .init(initialBackoff: initialBackoff, maxBackoff: maxBackoff, degradedHold: degradedHold,
              lostAfter: lostAfter, maxConsecutiveFaults: maxConsecutiveFaults)
    }
}

/// Running totals since the service started.
public struct BaroServiceCounters: Sendable, Equatable {
    /// Readings delivered.
    public var samples = 0
    /// Failed bus transfers (EIO, NACK, timeouts …), during init or reads.
    public var busErrors = 0
    /// Times the readings froze and the device was re-initialised for it.
    public var stuck = 0
    /// Successful (re)initialisations, the first one included.
    public var initializations = 0
    public var initFailures = 0
    /// Batches dropped because the consumer did not keep up.
    public var droppedBatches = 0
    public init() {}
}

/// A snapshot of the barometer service, readable from any thread.
public struct BaroServiceStatus: Sendable, Equatable {
    /// `ok`, `degraded` (recent faults, being re-initialised) or `lost`.
    public var health = IMUHealth.lost
    public var counters = BaroServiceCounters()
    /// "BMP280 at 0x76 on /dev/i2c-1"; nil before the first initialisation.
    public var device: String?
    /// The source spec as given.
    public var source: String
    public var lastError: String?
    public var lastErrorTime: Double?
    /// A replayed trace has been played to its end.
    public var endOfTrace = false
    public var running = false

    public init(source: String) { self.source = source }
}

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
    private let shared: Mutex<Shared>
    private let thread = SensorThread()

    private struct Shared {
        var status: BaroServiceStatus
    }

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
        shared = Mutex(Shared(status: BaroServiceStatus(source: source)))
        (batches, continuation) = AsyncStream.makeStream(of: BaroBatch.self,
                                                         bufferingPolicy: .bufferingNewest(max(1, config.bufferedBatches)))
    }

    public func start() {
        shared.withLock { $0.status.running = true }
        if !thread.start(name: "moonrunner-baro", { [self] in self.run() }) {
            shared.withLock { $0.status.running = false }
        }
    }

    /// Stops the thread and waits (at most `timeout` seconds) for it; the batch stream then finishes.
    public func stop(timeout: Double = 5) {
        if !thread.stop(timeout: timeout) { continuation.finish() }
    }

    public var status: BaroServiceStatus { shared.withLock { $0.status } }

    // MARK: - The thread

    private var stopRequested: Bool { thread.stopRequested }

    private func update(_ body: (inout BaroServiceStatus) -> Void) {
        shared.withLock { body(&$0.status) }
    }

    private func noteFault(_ message: String, at t: Double) {
        update {
            $0.lastError = message
            $0.lastErrorTime = t
        }
    }

    private func pause(_ seconds: Double) {
        thread.pause(seconds, clock: clock, step: 0.05)
    }

    private func run() {
        var bus: (any I2CBus)?
        var driver: (any BarometerDriver)?
        var recovery = DeviceRecovery(policy: config.recovery, now: clock.now())
        var lastRaw: (UInt32, UInt32)?
        var sameSince = Double.nan
        var ended = false
        var pending: [BaroSample] = []
        pending.reserveCapacity(64)
        var lastFlush = clock.now()
        var lastHealth: IMUHealth?

        func health(at t: Double) -> IMUHealth {
            recovery.health(at: t, connected: !ended && driver != nil)
        }
        func scheduleReinit(at t: Double) {
            driver = nil
            lastRaw = nil
            sameSince = .nan
            recovery.scheduleReinit(at: t)
        }
        func flush(at t: Double, force: Bool = false) {
            let h = health(at: t)
            update { $0.health = h }
            guard force || h != lastHealth || t - lastFlush >= config.batchInterval else { return }
            guard !pending.isEmpty || h != lastHealth || force else { return }
            lastHealth = h
            lastFlush = t
            if case .dropped = continuation.yield(BaroBatch(samples: pending, health: h)) {
                update { $0.counters.droppedBatches += 1 }
            }
            pending.removeAll(keepingCapacity: true)
        }

        while !stopRequested {
            if ended {
                thread.waitForStop()
                continue
            }
            if driver == nil {
                if let wait = recovery.wait(at: clock.now()) {
                    pause(wait)
                    continue
                }
                do throws(BaroDriverError) {
                    let b: any I2CBus
                    if let open = bus {
                        b = open
                    } else {
                        do { b = try openBus() } catch { throw .bus(error) }
                        bus = b
                    }
                    let d = try BarometerProbe.driver(bus: b, address: address, clock: clock)
                    try d.initialize()
                    driver = d
                    recovery.connected(at: clock.now())
                    let label = "\(d.model.map { "\($0)" } ?? "barometer") \(deviceLabel)"
                    update {
                        $0.counters.initializations += 1
                        $0.device = label
                    }
                } catch {
                    let t = clock.now()
                    recovery.fault(at: t)
                    if case let .bus(e) = error {
                        if case .openFailed = e { bus = nil }
                        update { $0.counters.busErrors += 1 }
                    }
                    update { $0.counters.initFailures += 1 }
                    noteFault("initialisation failed: \(error)", at: t)
                    scheduleReinit(at: t)
                    flush(at: t)
                    continue
                }
            }
            guard let d = driver else { continue }
            let period = d.measurementPeriod
            do throws(BaroDriverError) {
                let reading = try d.read()
                recovery.readSucceeded()
                let t = clock.now()
                if let r = reading {
                    let raw = (r.rawPressure, r.rawTemperature)
                    if let last = lastRaw, last == raw {
                        if sameSince.isNaN { sameSince = t }
                        if t - sameSince >= config.stuckAfter {
                            recovery.fault(at: t)
                            update { $0.counters.stuck += 1 }
                            noteFault("readings stuck at \(r.pressure) Pa for \(Int(config.stuckAfter)) s; re-initialising", at: t)
                            scheduleReinit(at: t)
                        }
                    } else {
                        sameSince = .nan
                        lastRaw = raw
                        recovery.delivered(at: t)
                        pending.append(BaroSample(t: t, pressure: r.pressure, temperature: r.temperature))
                        update { $0.counters.samples += 1 }
                    }
                }
            } catch {
                let t = clock.now()
                let tooMany = recovery.readFailed(at: t)
                if case .bus = error { update { $0.counters.busErrors += 1 } }
                noteFault("\(error)", at: t)
                if tooMany || error == .deviceReset {
                    noteFault("re-initialising after: \(error)", at: t)
                    scheduleReinit(at: t)
                }
            }
            let t = clock.now()
            if let end = traceEnd(), t > end + period {
                // The emulated device keeps measuring past the recording; stop there.
                pending.removeAll { $0.t > end + period }
                ended = true
                noteFault("end of trace", at: t)
                update { $0.endOfTrace = true }
                flush(at: t, force: true)
                driver?.sleepDevice()
                driver = nil
                continue
            }
            flush(at: t)
            pause(period / 2)
        }
        driver?.sleepDevice()
        flush(at: clock.now(), force: !pending.isEmpty)
        shared.withLock { $0.status.running = false }
        continuation.finish()
        thread.finish()
    }
}
