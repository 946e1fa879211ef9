import Dispatch
import FoundationEssentials
import Glibc
import MoonRunnerCore
import Synchronization

/// Settings of the IMU service (the daemon fills them from its config).
public struct IMUServiceConfig: Sendable, Equatable {
    /// Requested output rate in Hz (the device gets the nearest 1000/(1+div)).
    public var sampleRate: Double
    public var accelRange: AccelRange
    public var gyroRange: GyroRange
    /// Engine seconds between FIFO reads; the FIFO (85 frames at 12 bytes) must not fill
    /// in between: 0.05 s is 5 frames at 100 Hz.
    public var pollInterval: Double
    /// First and longest wait before re-initialising after a failure (doubles in between).
    public var initialBackoff: Double
    public var maxBackoff: Double
    /// Health stays `degraded` this long after the last fault.
    public var degradedHold: Double
    /// Health becomes `lost` after this long without samples.
    public var lostAfter: Double
    /// Consecutive failed or untrustworthy reads before the device is re-initialised.
    public var maxConsecutiveFaults: Int
    /// Batches kept for a slow consumer before the oldest are dropped (and counted).
    public var bufferedBatches: Int

    public init(sampleRate: Double = 100, accelRange: AccelRange = .g8, gyroRange: GyroRange = .dps1000,
                pollInterval: Double = 0.05, initialBackoff: Double = 0.5, maxBackoff: Double = 8,
                degradedHold: Double = 5, lostAfter: Double = 2, maxConsecutiveFaults: Int = 3,
                bufferedBatches: Int = 1200) {
        self.sampleRate = sampleRate
        self.accelRange = accelRange
        self.gyroRange = gyroRange
        self.pollInterval = pollInterval
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.degradedHold = degradedHold
        self.lostAfter = lostAfter
        self.maxConsecutiveFaults = maxConsecutiveFaults
        self.bufferedBatches = bufferedBatches
    }

    var recovery: DeviceRecovery.Policy {
        .init(initialBackoff: initialBackoff, maxBackoff: maxBackoff, degradedHold: degradedHold,
              lostAfter: lostAfter, maxConsecutiveFaults: maxConsecutiveFaults)
    }
}

/// Runs the IMU driver on its own thread and hands samples to the daemon.
///
/// The bus is blocking C, so the driver lives on a dedicated thread that reads the FIFO
/// every `pollInterval` of engine time and sleeps in between; batches go out through an
/// `AsyncStream`. Nothing a sensor does can stop it: bus errors and untrustworthy FIFOs
/// are counted, the device is re-initialised with exponential back-off, and health
/// (`ok`/`degraded`/`lost`) plus counters can be read at any time from any thread.
///
/// ```swift
/// let imu = try IMUService(spec: .parse(specString), config: cfg, clock: .engine(engineClock))
/// imu.start()
/// for await batch in imu.batches { … }   // ends after stop()
/// imu.stop()
/// ```
///
/// The thread keeps the service alive until `stop()`: always stop it.
public final class IMUService: Sendable {
    /// Sample batches in time order; finishes when the service stops.
    public let batches: AsyncStream<IMUBatch>
    /// In replay mode, the emulated device (for fault injection and end-of-trace).
    public let emulator: MPU6050Emulator?
    /// A replay recorded on the receiver's clock (stamped in UNIX time): it can
    /// only start once the receiver's time is known (`EngineClock.receiverKnown`).
    public let waitsForReceiver: Bool
    public let config: IMUServiceConfig
    public let driverConfig: MPU6050Config

    private let continuation: AsyncStream<IMUBatch>.Continuation
    private let openBus: @Sendable () throws(I2CError) -> any I2CBus
    private let clock: IMUClock
    private let deviceLabel: String
    private let shared: Mutex<Shared>
    private let thread = SensorThread()

    private struct Shared {
        var status: IMUServiceStatus
    }

    /// The daemon's entry point: a real bus or a replayed trace, on the engine clock.
    /// Throws `IMUTraceError` at once when a replay file cannot be opened or has no usable
    /// header (a configuration mistake, not a sensor fault).
    public convenience init(spec: IMUSourceSpec, config: IMUServiceConfig, clock: IMUClock) throws {
        switch spec {
        case let .i2c(path, address):
            self.init(bus: { () throws(I2CError) -> any I2CBus in try LinuxI2CBus(path: path) },
                      address: address, gyroEnabled: true, config: config, clock: clock,
                      source: spec.description, deviceLabel: "at \(I2CError.hex(address)) on \(path)")
        case let .replay(path, _, loop, faults):
            let reader = try IMUTraceReader(path: path, bufferSize: IMUTraceReader.replayBufferSize)
            let hasGyro = reader.hasGyro
            let reopen: (@Sendable () throws -> any IMUSampleSource)? = loop ? { @Sendable () throws -> any IMUSampleSource in
                try IMUTraceReader(path: path, bufferSize: IMUTraceReader.replayBufferSize)
            } : nil
            let emulator = MPU6050Emulator(clock: clock.now, source: reader, reopen: reopen,
                                           receiverOffset: clock.receiverOffset)
            let bus: any I2CBus = faults.isEmpty ? emulator : ScheduledFaultBus(device: emulator, plan: faults, clock: clock.now)
            self.init(bus: { () throws(I2CError) -> any I2CBus in bus },
                      address: emulator.address, gyroEnabled: hasGyro, config: config, clock: clock,
                      source: spec.description, deviceLabel: "(emulated) replaying \(path)", emulator: emulator,
                      waitsForReceiver: emulator.waitsForReceiver)
        }
    }

    /// Any bus: `bus` is called (on the service thread) whenever the bus has to be opened.
    public init(bus: @escaping @Sendable () throws(I2CError) -> any I2CBus, address: UInt8 = 0x68,
                gyroEnabled: Bool = true, config: IMUServiceConfig, clock: IMUClock,
                source: String, deviceLabel: String = "", emulator: MPU6050Emulator? = nil,
                waitsForReceiver: Bool = false) {
        self.waitsForReceiver = waitsForReceiver
        self.openBus = bus
        self.config = config
        self.clock = clock
        self.emulator = emulator
        self.deviceLabel = deviceLabel
        driverConfig = MPU6050Config(address: address, sampleRate: config.sampleRate,
                                     accelRange: config.accelRange, gyroRange: config.gyroRange,
                                     gyroEnabled: gyroEnabled)
        let rate = MPU6050RateSettings(rate: config.sampleRate).sampleRate
        shared = Mutex(Shared(status: IMUServiceStatus(source: source, sampleRate: rate, hasGyro: gyroEnabled)))
        (batches, continuation) = AsyncStream.makeStream(of: IMUBatch.self,
                                                         bufferingPolicy: .bufferingNewest(max(1, config.bufferedBatches)))
    }

    // MARK: - Control

    /// Starts the IMU thread (once).
    public func start() {
        shared.withLock { $0.status.running = true }
        if !thread.start(name: "moonrunner-imu", { [self] in self.run() }) {
            shared.withLock { $0.status.running = false }
        }
    }

    /// Stops the thread and waits (at most `timeout` seconds) until it has exited; the
    /// batch stream then finishes.
    public func stop(timeout: Double = 5) {
        if !thread.stop(timeout: timeout) { continuation.finish() }
    }

    // MARK: - Observation

    public var status: IMUServiceStatus { shared.withLock { $0.status } }
    public var health: IMUHealth { shared.withLock { $0.status.health } }
    public var counters: IMUCounters { shared.withLock { $0.status.counters } }

    // MARK: - The thread

    private var stopRequested: Bool { thread.stopRequested }

    private func update(_ body: (inout IMUServiceStatus) -> Void) {
        shared.withLock { body(&$0.status) }
    }

    private func noteFault(_ message: String, at t: Double) {
        update {
            $0.lastError = message
            $0.lastErrorTime = t
        }
    }

    /// Sleeps `seconds` of engine time in poll-sized steps, so `stop()` is honoured promptly.
    private func pause(_ seconds: Double) {
        thread.pause(seconds, clock: clock, step: config.pollInterval)
    }

    private func run() {
        var bus: (any I2CBus)?
        var driver: MPU6050Driver?
        var recovery = DeviceRecovery(policy: config.recovery, now: clock.now())
        var pendingLost = 0
        var lastHealth: IMUHealth?
        var ended = false
        let period = 1 / MPU6050RateSettings(rate: config.sampleRate).sampleRate
        let reserve = Int(config.pollInterval / period * 1.5) + 16

        func health(at t: Double) -> IMUHealth {
            recovery.health(at: t, connected: !ended && driver != nil)
        }

        func scheduleReinit(at t: Double) {
            driver = nil
            recovery.scheduleReinit(at: t)
        }

        func publish(_ samples: [IMUSample], at t: Double) {
            let h = health(at: t)
            update { $0.health = h }
            guard !samples.isEmpty || h != lastHealth || ended else { return }
            lastHealth = h
            let batch = IMUBatch(samples: samples, health: h, lostBefore: pendingLost, endOfTrace: ended)
            pendingLost = 0
            if case .dropped = continuation.yield(batch) {
                update { $0.counters.droppedBatches += 1 }
            }
        }

        while !stopRequested {
            if ended {
                // The trace is played out and the device asleep: nothing can happen until
                // stop(), so block on it rather than waking every poll interval.
                thread.waitForStop()
                continue
            }
            if driver == nil {
                if let wait = recovery.wait(at: clock.now()) {
                    pause(wait)
                    continue
                }
                do throws(IMUDriverError) {
                    let b: any I2CBus
                    if let open = bus {
                        b = open
                    } else {
                        do { b = try openBus() } catch { throw .bus(error) }
                        bus = b
                    }
                    let d = MPU6050Driver(bus: b, config: driverConfig, clock: clock)
                    try d.initialize()
                    driver = d
                    recovery.connected(at: clock.now())
                    let label = "\(d.model.map { "\($0)" } ?? "IMU") \(deviceLabel)"
                    update {
                        $0.counters.initializations += 1
                        $0.device = label
                        $0.sampleRate = d.rate.sampleRate
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
                    publish([], at: t)
                    continue
                }
            }
            guard let d = driver else { continue }

            var samples: [IMUSample] = []
            samples.reserveCapacity(reserve)
            var tooMany = false
            do {
                let before = clock.now()
                let report = try d.readFIFO(into: &samples)
                let t = clock.now()
                clock.caughtUp(before)
                pendingLost += report.lostSamples
                if let anomaly = report.anomaly {
                    tooMany = recovery.readFailed(at: t)
                    update {
                        $0.counters.fifoResets += 1
                        $0.counters.lostSamples += report.lostSamples
                        if case .overflow = anomaly { $0.counters.overflows += 1 }
                        if case let .garbageFrames(n) = anomaly { $0.counters.rejected += n }
                    }
                    noteFault(anomaly.description, at: t)
                } else {
                    recovery.readSucceeded()
                }
            } catch {
                let t = clock.now()
                tooMany = recovery.readFailed(at: t)
                update { $0.counters.busErrors += 1 }
                noteFault("\(error)", at: t)
            }
            let t = clock.now()
            if tooMany {
                noteFault("re-initialising after \(config.maxConsecutiveFaults) consecutive faults; last: \(status.lastError ?? "?")", at: t)
                scheduleReinit(at: t)
            }

            let read = samples.count
            samples.removeAll { !$0.isPlausible }
            let implausible = read - samples.count
            if waitsForReceiver, let emulator, !samples.isEmpty {
                // Before its recording begins the emulated device holds the first
                // sample; a replay on the receiver's clock starts where the trace does.
                let begin = (emulator.traceStartTime ?? .infinity) - 0.5 * period
                if samples[0].t < begin { samples.removeAll { $0.t < begin } }
            }
            if let emulator, let end = emulator.endOfTraceTime {
                // The emulated device keeps sampling past the recording; cut it there.
                let cutoff = end + 0.5 * period
                if let cut = samples.firstIndex(where: { $0.t > cutoff }) {
                    samples.removeSubrange(cut...)
                }
                ended = true
                noteFault("end of trace", at: t)
                update { $0.endOfTrace = true }
            }
            // Without a device (dropped above) health is `lost` whatever the last data was.
            if !samples.isEmpty, driver != nil { recovery.delivered(at: t) }
            let delivered = samples.count
            update {
                $0.counters.samples += delivered
                $0.counters.rejected += implausible
            }
            publish(samples, at: t)
            if ended {
                driver?.sleepDevice()
                driver = nil
                continue
            }
            pause(config.pollInterval)
        }

        driver?.sleepDevice()
        shared.withLock { $0.status.running = false }
        continuation.finish()
        thread.finish()
    }
}
