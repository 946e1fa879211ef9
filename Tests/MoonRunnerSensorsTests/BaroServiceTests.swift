import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

/// The barometer service on its own thread, driving the real driver against the
/// emulator on a fast virtual clock (as the IMU service's tests do: faults are
/// scheduled on the virtual timeline and the clock stops at a horizon).
@Suite("Barometer service")
struct BaroServiceTests {
    struct Run {
        var batches: [BaroBatch]
        var status: BaroServiceStatus
        var samples: [BaroSample] { batches.flatMap(\.samples) }
        func samples(after t: Double) -> [BaroSample] { samples.filter { $0.t >= t } }
    }

    static let start = 1_000.0

    /// Reading every measurement (`readInterval` 0), as the fault tests need; the daemon's default reads once a second.
    static func service(_ clock: IMUManualClock, seconds: Int = 600, faults: [ScheduledFault] = [],
                        config: BaroServiceConfig = BaroServiceConfig(readInterval: 0)) -> (BaroService, BMP280Emulator) {
        let emulator = BMP280Emulator(clock: { clock.now }, trace: BaroDriverTests.trace(seconds: seconds))
        let bus: any I2CBus = faults.isEmpty ? emulator : ScheduledFaultBus(device: emulator, plan: faults, clock: { clock.now })
        let service = BaroService(bus: { () throws(I2CError) -> any I2CBus in bus }, address: 0x76, config: config,
                                  clock: clock.imuClock, source: "test", traceEnd: { emulator.endOfTraceTime })
        return (service, emulator)
    }

    static func run(_ service: BaroService, _ clock: IMUManualClock, until horizon: Double) async -> Run {
        clock.horizon = horizon
        let stream = service.batches
        let drain = Task.detached { () -> [BaroBatch] in
            var all: [BaroBatch] = []
            for await b in stream { all.append(b) }
            return all
        }
        service.start()
        let reached = await imuWait(timeout: 120) { clock.now >= horizon || service.status.endOfTrace }
        #expect(reached, "virtual clock stuck at \(clock.now), horizon \(horizon)")
        service.stop()
        let batches = await drain.value
        let status = service.status
        #expect(status.counters.droppedBatches == 0)
        #expect(batches.reduce(0) { $0 + $1.samples.count } == status.counters.samples)
        return Run(batches: batches, status: status)
    }

    @Test("by default one reading a second, in order: the CPU sleeps between reads")
    func defaultReadsOnceASecond() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0001)
        let (service, _) = Self.service(clock, config: BaroServiceConfig())
        let run = await Self.run(service, clock, until: Self.start + 60)
        let s = run.samples
        #expect(s.count >= 58 && s.count <= 61, "\(s.count) readings")
        let gaps = zip(s, s.dropFirst()).map { $0.1.t - $0.0.t }
        #expect(gaps.allSatisfy { $0 > 0.9 && $0 < 1.2 }, "\(gaps.min() ?? 0)…\(gaps.max() ?? 0) s apart")
        #expect(run.status.health == .ok)
    }

    @Test func replayedTraceArrivesOncePerMeasurementInOrder() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0001)
        let (service, _) = Self.service(clock)
        let run = await Self.run(service, clock, until: Self.start + 60)
        let s = run.samples
        // 10 Hz for 60 s, each measurement once (the service polls at 20 Hz).
        #expect(s.count >= 590 && s.count <= 601, "\(s.count) readings")
        #expect(zip(s, s.dropFirst()).allSatisfy { $0.1.t > $0.0.t })
        #expect(s.allSatisfy { $0.pressure > 97_950 && $0.pressure < 98_010 && $0.temperature > 21.9 && $0.temperature < 30 })
        #expect(run.status.health == .ok && run.status.device?.hasPrefix("BMP280") == true)
        #expect(run.status.counters.initializations == 1)
    }

    @Test func eioBurstDegradesThenRecovers() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0001)
        let (service, emulator) = Self.service(clock)
        let fault = Self.start + 10
        clock.at(fault) { emulator.failNextReads(6) }
        let run = await Self.run(service, clock, until: fault + 40)
        #expect(run.status.counters.busErrors == 6)
        #expect(run.batches.contains { $0.health != .ok })
        #expect(run.status.counters.initializations >= 2)
        #expect(run.status.lastError?.contains("EIO") == true)
        #expect(run.samples(after: fault + 25).count > 100)
        #expect(run.status.health == .ok)
    }

    @Test func absentDeviceIsLostAndComesBack() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0001)
        let (service, emulator) = Self.service(clock)
        let unplug = Self.start + 5, replug = Self.start + 40
        let whileAbsent = IMUBox<BaroServiceStatus?>(nil)
        clock.at(unplug) { emulator.isPresent = false }
        clock.at(unplug + 30) { whileAbsent.set(service.status) }
        clock.at(replug) { emulator.isPresent = true }
        let run = await Self.run(service, clock, until: Self.start + 70)
        let absent = try #require(whileAbsent.get)
        #expect(absent.health == .lost)
        #expect(absent.lastError?.contains("no acknowledge") == true)
        #expect(absent.counters.initFailures >= 4 && absent.counters.initFailures <= 10)
        #expect(run.samples(after: replug + 10).count > 100)
        #expect(run.status.health == .ok)
    }

    @Test func foreignChipIDIsReportedAndRetried() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0001)
        let (service, _) = Self.service(clock, faults: [ScheduledFault(kind: .chipid, start: 0, duration: 12)])
        let early = IMUBox<BaroServiceStatus?>(nil)
        clock.at(Self.start + 8) { early.set(service.status) }
        let run = await Self.run(service, clock, until: Self.start + 40)
        let e = try #require(early.get)
        #expect(e.health == .lost && e.counters.samples == 0)
        #expect(e.lastError?.contains("chip id 0x42") == true)
        #expect(run.status.counters.samples > 100 && run.status.health == .ok)
    }

    @Test func frozenReadingsAreDetectedAndTheDeviceReinitialised() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0001)
        let (service, _) = Self.service(clock, faults: [ScheduledFault(kind: .stuck, start: 10, duration: 6)])
        let run = await Self.run(service, clock, until: Self.start + 40)
        #expect(run.status.counters.stuck >= 1)
        #expect(run.status.counters.initializations >= 2)
        // Nothing frozen was delivered: no reading repeats the one before it.
        let s = run.samples
        #expect(zip(s, s.dropFirst()).allSatisfy { $0.0.pressure != $0.1.pressure || $0.0.temperature != $0.1.temperature })
        #expect(run.samples(after: Self.start + 30).count > 50)
    }

    @Test func afterTheEndOfTheTraceTheServiceIsLostAndIdle() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0001)
        let (service, _) = Self.service(clock, seconds: 20)
        let run = await Self.run(service, clock, until: Self.start + 60)
        #expect(run.status.endOfTrace)
        #expect(run.batches.last?.health == .lost)
        #expect(run.samples.count >= 190 && run.samples.count <= 201)
    }

    @Test func noneMeansNoService() throws {
        let clock = IMUManualClock(start: Self.start)
        #expect(try BaroService.make(spec: .none, clock: clock.imuClock) == nil)
        #expect(throws: TraceFileError.self) {
            _ = try BaroService.make(spec: .replay(path: "/nonexistent.csv", speed: 1, loop: false), clock: clock.imuClock)
        }
    }
}
