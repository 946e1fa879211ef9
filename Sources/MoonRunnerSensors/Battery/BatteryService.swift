import FoundationEssentials
import MoonRunnerCore

/// Settings of the battery service.
public struct BatteryServiceConfig: Sendable, Equatable {
    /// Engine seconds between reads: a cell drains over hours, so a read every
    /// 10 s tells the charge well within a percent and costs 0.1 wakeups a second.
    public var interval: Double
    /// First and longest wait before re-initialising after a failure (doubles in between).
    public var initialBackoff: Double
    public var maxBackoff: Double
    /// Consecutive failed reads before the gauge is re-initialised.
    public var maxConsecutiveFaults: Int
    /// The same raw words this long mean a frozen gauge: re-initialised. A
    /// gauge's voltage moves by its last bits every conversion, even at rest.
    public var stuckAfter: Double

    public init(interval: Double = 10, initialBackoff: Double = 2, maxBackoff: Double = 60,
                maxConsecutiveFaults: Int = 3, stuckAfter: Double = 300) {
        self.interval = interval
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.maxConsecutiveFaults = maxConsecutiveFaults
        self.stuckAfter = stuckAfter
    }

    var recovery: DeviceRecovery.Policy {
        .init(initialBackoff: initialBackoff, maxBackoff: maxBackoff, degradedHold: 3 * interval,
              lostAfter: 3 * interval + 1, maxConsecutiveFaults: maxConsecutiveFaults)
    }
}

/// The battery service's totals and snapshot: those every chip service
/// keeps (`ChipServiceStatus`).
public typealias BatteryServiceCounters = ChipServiceCounters
public typealias BatteryServiceStatus = ChipServiceStatus

/// Reads a battery gauge on its own thread every `interval` and hands the
/// readings over, stamped on the engine clock. Like the other sensor
/// services nothing the gauge does can stop it: failures are counted, noted
/// and the gauge brought up again with back-off; a gauge that fails sends no
/// readings, which is all the daemon needs to know to never act on it.
public final class BatteryService: Sendable {
    public let readings: AsyncStream<BatteryReading>
    public let config: BatteryServiceConfig

    private let continuation: AsyncStream<BatteryReading>.Continuation
    private let makeGauge: @Sendable () throws(GaugeError) -> any BatteryGauge
    private let clock: IMUClock
    private let shared: SensorStatusBox<BatteryServiceStatus>
    private let thread = SensorThread()

    /// `gauge` makes a driver (on the service's thread) each time one has to be brought up.
    public init(gauge: @escaping @Sendable () throws(GaugeError) -> any BatteryGauge, source: String,
                config: BatteryServiceConfig = BatteryServiceConfig(), clock: IMUClock) {
        makeGauge = gauge
        self.config = config
        self.clock = clock
        shared = SensorStatusBox(BatteryServiceStatus(source: source))
        (readings, continuation) = AsyncStream.makeStream(of: BatteryReading.self, bufferingPolicy: .bufferingNewest(64))
    }

    public func start() {
        shared.update { $0.running = true }
        if !thread.start(name: "moonrunner-batt", { [self] in self.run() }) {
            shared.update { $0.running = false }
        }
    }

    /// Stops the thread and waits (at most `timeout` seconds) for it; the stream then finishes.
    public func stop(timeout: Double = 5) {
        if !thread.stop(timeout: timeout) { continuation.finish() }
    }

    public var status: BatteryServiceStatus { shared.value }

    // MARK: - The thread

    private struct Poll {
        var gauge: (any BatteryGauge)?
        var recovery: DeviceRecovery
        var stuck: StuckReadings
    }

    private func run() {
        var p = Poll(gauge: nil, recovery: DeviceRecovery(policy: config.recovery, now: clock.now()),
                     stuck: StuckReadings(stuckAfter: config.stuckAfter))
        while !thread.stopRequested {
            if p.gauge == nil {
                if let wait = p.recovery.wait(at: clock.now()) {
                    thread.pause(wait, clock: clock, step: 0.5)
                    continue
                }
                attach(&p)
            }
            if let gauge = p.gauge { read(gauge, &p) }
            shared.update { $0.health = p.recovery.health(at: clock.now(), connected: p.gauge != nil) }
            thread.pause(config.interval, clock: clock, step: 0.5)
        }
        shared.update { $0.running = false }
        continuation.finish()
        thread.finish()
    }

    private func attach(_ p: inout Poll) {
        let t = clock.now()
        do throws(GaugeError) {
            let gauge = try makeGauge()
            try gauge.initialize()
            p.gauge = gauge
            p.recovery.connected(at: t)
            p.stuck = StuckReadings(stuckAfter: config.stuckAfter)
            shared.update {
                $0.counters.initializations += 1
                $0.device = gauge.label
            }
        } catch {
            shared.update {
                $0.counters.initFailures += 1
                $0.counters.busErrors += 1
            }
            shared.noteFault("\(error)", at: t)
            p.recovery.fault(at: t)
            p.recovery.scheduleReinit(at: t)
        }
    }

    private func read(_ gauge: any BatteryGauge, _ p: inout Poll) {
        do throws(GaugeError) {
            let sample = try gauge.read()
            let t = clock.now()
            p.recovery.readSucceeded()
            // power_supply files carry no raw words (0): their numbers may rest for minutes.
            let frozen = sample.raw != 0
                && p.stuck.check(pressure: UInt32(truncatingIfNeeded: sample.raw >> 32),
                                 temperature: UInt32(truncatingIfNeeded: sample.raw), at: t) == .stuck
            if frozen {
                shared.update { $0.counters.stuck += 1 }
                shared.noteFault("gauge readings frozen for \(Int(config.stuckAfter)) s; re-initialising", at: t)
                drop(&p, at: t)
                return
            }
            p.recovery.delivered(at: t)
            shared.update { $0.counters.samples += 1 }
            if case .dropped = continuation.yield(sample.reading(at: t)) {
                shared.update { $0.counters.droppedBatches += 1 }
            }
        } catch {
            let t = clock.now()
            shared.update { $0.counters.busErrors += 1 }
            shared.noteFault("\(error)", at: t)
            if p.recovery.readFailed(at: t) || error == .deviceReset { drop(&p, at: t) }
        }
    }

    private func drop(_ p: inout Poll, at t: Double) {
        p.gauge = nil
        p.recovery.fault(at: t)
        p.recovery.scheduleReinit(at: t)
    }
}
