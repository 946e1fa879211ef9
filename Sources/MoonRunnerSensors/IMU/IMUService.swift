import Dispatch
import FoundationEssentials
import Glibc
import MoonRunnerCore

/// Settings of the IMU service (the daemon fills them from its config).
public struct IMUServiceConfig: Sendable, Equatable {
    /// Requested output rate in Hz (the device gets the nearest 1000/(1+div)).
    public var sampleRate: Double
    public var accelRange: AccelRange
    public var gyroRange: GyroRange
    /// Engine seconds between FIFO reads; nil (the default): a burst read at
    /// `burstFill` of the time the FIFO takes to fill (0.51 s at 100 Hz with the
    /// gyroscope: an MPU-6050's 1024 bytes hold 85 frames of 12), so the CPU
    /// sleeps between reads and the FIFO still never fills.
    public var pollInterval: Double?
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
                pollInterval: Double? = nil, initialBackoff: Double = 0.5, maxBackoff: Double = 8,
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

    /// The share of the FIFO's fill time between burst reads: the rest is the
    /// margin for a late read (a busy CPU, a slow bus) before it overflows.
    public static let burstFill = 0.6

    /// Seconds between reads for a FIFO of `capacity` bytes filling with
    /// `frameSize`-byte frames every `period` seconds.
    func interval(capacity: Int, frameSize: Int, period: Double) -> Double {
        pollInterval ?? Self.burstFill * Double(capacity / max(1, frameSize)) * period
    }
}

/// Runs the IMU driver on its own thread (the bus is blocking C), reading the
/// FIFO in bursts (`IMUServiceConfig.interval`) of engine time; batches go out through `batches`.
/// Bus errors and untrustworthy FIFOs are counted and the device re-initialised
/// with exponential back-off; health (`ok`/`degraded`/`lost`) and counters can be
/// read from any thread. The thread keeps the service alive: always stop it.
///
/// ```swift
/// let imu = try IMUService(spec: .parse(specString), config: cfg, clock: .engine(engineClock))
/// imu.start()
/// for await batch in imu.batches { … }   // ends after stop()
/// imu.stop()
/// ```
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
    private let shared: SensorStatusBox<IMUServiceStatus>
    private let thread = SensorThread()
    private let held = BatchHold<IMUBatch>()

    /// The daemon's entry point: the service for a configured IMU, nil for `none` (a
    /// GPS-only set-up, nothing to read).
    public static func make(spec: IMUSourceSpec, config: IMUServiceConfig, clock: IMUClock) throws -> IMUService? {
        if case .none = spec { return nil }
        return try IMUService(spec: spec, config: config, clock: clock)
    }

    /// A real bus or a replayed trace, on the engine clock. Throws `IMUTraceError` at once
    /// when a replay file cannot be opened or has no usable header (a configuration mistake,
    /// not a sensor fault). `none` (see `make`) gives a service whose bus never opens.
    public convenience init(spec: IMUSourceSpec, config: IMUServiceConfig, clock: IMUClock) throws {
        switch spec {
        case .none:
            self.init(bus: { () throws(I2CError) -> any I2CBus in throw I2CError.openFailed(path: "none", errno: ENODEV) },
                      address: IMUSourceSpec.defaultAddress, gyroEnabled: false, config: config, clock: clock,
                      source: spec.description, deviceLabel: "(none configured)")
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
        shared = SensorStatusBox(IMUServiceStatus(source: source, sampleRate: rate, hasGyro: gyroEnabled))
        (batches, continuation) = AsyncStream.makeStream(of: IMUBatch.self,
                                                         bufferingPolicy: .bufferingNewest(max(1, config.bufferedBatches)))
    }

    // MARK: - Control

    /// Starts the IMU thread (once).
    public func start() {
        shared.update { $0.running = true }
        if !thread.start(name: "moonrunner-imu", { [self] in self.run() }) {
            shared.update { $0.running = false }
        }
    }

    /// Stops the thread and waits (at most `timeout` seconds) until it has exited; the
    /// batch stream then finishes.
    public func stop(timeout: Double = 5) {
        if !thread.stop(timeout: timeout) { continuation.finish() }
    }

    // MARK: - Observation

    public var status: IMUServiceStatus { shared.value }
    public var health: IMUHealth { shared.value.health }
    public var counters: IMUCounters { shared.value.counters }

    // MARK: - The thread

    /// What the thread keeps between FIFO reads.
    private struct Poll {
        var device: SensorDevice<MPU6050Driver>
        /// Seconds between samples at the configured rate.
        let period: Double
        /// Room for a whole FIFO's samples, so that a read never reallocates.
        let reserve: Int
        /// Engine seconds between reads (`IMUServiceConfig.interval`), set at each bring-up.
        var interval: Double
        /// The device was brought up and put to sleep because no session needs it.
        var parked = false
        /// When the last read began: the next begins `interval` after it, however long this one took.
        var readStart = -Double.infinity
        /// Samples lost since the last batch went out (the next batch's `lostBefore`).
        var pendingLost = 0
        /// The health the last batch carried.
        var lastHealth: IMUHealth?
    }

    private var stopRequested: Bool { thread.stopRequested }

    /// Sleeps `seconds` of engine time; `stop()` ends it at once.
    private func pause(_ seconds: Double, once: Bool = false) {
        thread.pause(seconds, clock: clock, step: 0.05, once: once)
    }

    private func run() {
        let period = 1 / MPU6050RateSettings(rate: config.sampleRate).sampleRate
        // The largest FIFO (1024 bytes) in the smallest frames (accelerometer only, 6 bytes).
        let most = max(Int((config.pollInterval ?? 0) / period * 1.5), 1024 / 6) + 16
        var p = Poll(device: SensorDevice(openBus: openBus, policy: config.recovery, clock: clock), period: period,
                     reserve: most, interval: config.interval(capacity: 512, frameSize: 12, period: period))
        while !stopRequested {
            if p.device.ended {
                // The trace is played out and the device asleep: nothing can happen until
                // stop(), so block on it rather than waking every poll interval.
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
            poll(d, &p)
            if p.device.ended {
                p.device.release()?.sleepDevice()
                continue
            }
            pause(p.interval - (clock.now() - p.readStart), once: true)
        }
        p.device.driver?.sleepDevice()
        shared.update { $0.running = false }
        continuation.finish()
        thread.finish()
    }

    /// No session needs the IMU: the device sleeps (its FIFO stops) and the
    /// thread blocks until one does; health stays as the last bring-up left it.
    /// A device that never came up is not parked: its bring-up goes on, so
    /// that `STATUS` says why it fails before a session starts.
    private func park(_ p: inout Poll) {
        if let d = p.device.release() {
            d.sleepDevice()
            p.parked = true
            p.pendingLost = 0
            shared.update { $0.health = .ok }
            clock.caughtUp(-Double.infinity, 0)
        }
        thread.waitUntilWanted()
    }

    /// Whether a session needs the readings (the daemon says so); the thread parks while not.
    public func want(_ wanted: Bool) {
        thread.want(wanted)
    }

    /// Initialises the device (opening the bus first if it has to); false when that failed.
    private func attach(_ p: inout Poll) -> Bool {
        do throws(IMUDriverError) {
            let d = try p.device.initialize { (bus: any I2CBus) throws(IMUDriverError) -> MPU6050Driver in
                let d = MPU6050Driver(bus: bus, config: driverConfig, clock: clock)
                try d.initialize()
                return d
            }
            let label = "\(d.model.map { "\($0)" } ?? "IMU") \(deviceLabel)"
            p.interval = config.interval(capacity: d.model?.fifoCapacity ?? 512, frameSize: d.frameSize, period: p.period)
            shared.update {
                $0.counters.initializations += 1
                $0.device = label
                $0.sampleRate = d.rate.sampleRate
            }
            return true
        } catch {
            let t = clock.now()
            p.device.initializationFailed(error, at: t, status: shared)
            publish([], &p, at: t)
            return false
        }
    }

    /// One FIFO read: its samples checked, cut to the recording, counted and handed over.
    private func poll(_ d: MPU6050Driver, _ p: inout Poll) {
        var samples: [IMUSample] = []
        samples.reserveCapacity(p.reserve)
        let mark = emulator?.fifoBytesRead
        let tooMany = read(d, into: &samples, &p)
        if let mark { keepRecorded(&samples, readSince: mark, frameSize: d.frameSize) }
        let t = clock.now()
        if tooMany {
            shared.noteFault("re-initialising after \(config.maxConsecutiveFaults) consecutive faults; last: \(status.lastError ?? "?")", at: t)
            p.device.drop(at: t)
        }
        let implausible = keepPlausible(&samples)
        endAtTraceEnd(&p, at: t)
        // Without a device (dropped above) health is `lost` whatever the last data was.
        if !samples.isEmpty, p.device.driver != nil { p.device.recovery.delivered(at: t) }
        let delivered = samples.count
        shared.update {
            $0.counters.samples += delivered
            $0.counters.rejected += implausible
        }
        publish(samples, &p, at: t)
    }

    /// Reads the FIFO into `samples`, counting what went wrong; true when too many reads in a row have.
    private func read(_ d: MPU6050Driver, into samples: inout [IMUSample], _ p: inout Poll) -> Bool {
        do {
            let before = clock.now()
            p.readStart = before
            let report = try d.readFIFO(into: &samples)
            let t = clock.now()
            // The clock may run on until the FIFO is 90 % full (0.77 s at 100 Hz with the gyroscope).
            clock.caughtUp(before, 0.9 * p.interval / IMUServiceConfig.burstFill)
            p.pendingLost += report.lostSamples
            guard let anomaly = report.anomaly else {
                p.device.recovery.readSucceeded()
                return false
            }
            let tooMany = p.device.recovery.readFailed(at: t)
            shared.update {
                $0.counters.fifoResets += 1
                $0.counters.lostSamples += report.lostSamples
                if case .overflow = anomaly { $0.counters.overflows += 1 }
                if case let .garbageFrames(n) = anomaly { $0.counters.rejected += n }
            }
            shared.noteFault(anomaly.description, at: t)
            return tooMany
        } catch {
            let t = clock.now()
            let tooMany = p.device.recovery.readFailed(at: t)
            shared.update { $0.counters.busErrors += 1 }
            shared.noteFault("\(error)", at: t)
            return tooMany
        }
    }

    /// On a replay, the samples of the recording and no others: before it begins the
    /// emulated device holds its first sample (a trace on the receiver's clock), after
    /// it ends its last, as a sensor keeps sampling. The emulator says how many of the
    /// frames just read were which; their stamps could not (one sample too many at 20×).
    private func keepRecorded(_ samples: inout [IMUSample], readSince mark: FIFOBytesRead, frameSize: Int) {
        guard let emulator, !samples.isEmpty else { return }
        let now = emulator.fifoBytesRead
        let all = (now.total - mark.total) / frameSize
        // Without a trace nothing is counted, and frames the driver dropped as garbage
        // leave the rest unmatched: then all are kept.
        guard all == samples.count else { return }
        samples.removeFirst((now.beforeTrace - mark.beforeTrace) / frameSize)
        samples.removeLast((now.afterTrace - mark.afterTrace) / frameSize)
    }

    /// Drops the implausible samples; how many they were.
    private func keepPlausible(_ samples: inout [IMUSample]) -> Int {
        let read = samples.count
        samples.removeAll { !$0.isPlausible }
        return read - samples.count
    }

    /// A replay whose recording has ended: the device ended.
    private func endAtTraceEnd(_ p: inout Poll, at t: Double) {
        guard let emulator, emulator.isEndOfTrace else { return }
        p.device.ended = true
        shared.noteFault("end of trace", at: t)
        shared.update { $0.endOfTrace = true }
    }

    /// Hands a batch to the daemon when there are samples, the health changed or the trace ended.
    private func publish(_ samples: [IMUSample], _ p: inout Poll, at t: Double) {
        let h = p.device.health(at: t)
        shared.update { $0.health = h }
        guard !samples.isEmpty || h != p.lastHealth || p.device.ended else { return }
        let batch = IMUBatch(samples: samples, health: h, lostBefore: p.pendingLost, endOfTrace: p.device.ended)
        p.pendingLost = 0
        if held.isEnabled {
            // The stream then carries only a doorbell: the batches wait in `takeHeld`.
            let urgent = h != p.lastHealth || p.device.ended
            guard held.keep(batch, at: t, urgent: urgent) else { return }
            p.lastHealth = h
            if case .dropped = continuation.yield(IMUBatch(samples: [], health: h)) {
                shared.update { $0.counters.droppedBatches += 1 }
            }
            return
        }
        p.lastHealth = h
        if case .dropped = continuation.yield(batch) {
            shared.update { $0.counters.droppedBatches += 1 }
        }
    }

    /// From now on batches wait (up to `seconds` of engine time) for
    /// `takeHeld()`, and `batches` only rings when they waited that long or
    /// something is urgent: one wake of the daemon a second, not one a read.
    public func hold(upTo seconds: Double) {
        held.enable(hold: seconds)
    }

    /// The batches held since the last call, oldest first.
    public func takeHeld() -> [IMUBatch] {
        held.take()
    }
}

extension IMUCounters: SensorCounters {}
extension IMUServiceStatus: SensorStatus {}
