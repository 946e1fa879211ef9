import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

/// The IMU service on its own thread, driving the emulator on a fast virtual clock.
@Suite("IMU service")
struct IMUServiceTests {
    /// Collects every batch until the stream ends or `until` says stop.
    final class Collector: @unchecked Sendable {
        private let lock = NSLock()
        private var _samples: [IMUSample] = []
        private var _batches: [IMUBatch] = []
        var samples: [IMUSample] { lock.withLock { _samples } }
        var batches: [IMUBatch] { lock.withLock { _batches } }
        func add(_ b: IMUBatch) {
            lock.withLock {
                _batches.append(b)
                _samples.append(contentsOf: b.samples)
            }
        }
    }

    static func collect(_ service: IMUService) -> Collector {
        let c = Collector()
        let stream = service.batches
        Task.detached {
            for await b in stream { c.add(b) }
        }
        return c
    }

    static func emulatorService(_ clock: IMUManualClock, trace: [IMUSample], loop: Bool = true,
                                config: IMUServiceConfig = IMUServiceConfig())
        -> (IMUService, MPU6050Emulator) {
        let emulator = MPU6050Emulator(clock: { clock.now }, samples: trace, loop: loop)
        let service = IMUService(bus: { () throws(I2CError) -> any I2CBus in emulator }, config: config,
                                 clock: clock.imuClock, source: "test", emulator: emulator)
        return (service, emulator)
    }

    @Test(arguments: [true, false])
    func replayedTraceArrivesUnchangedOnTheSampleClock(gyro: Bool) async throws {
        let dir = IMUTempDir()
        let trace = IMUTestTraces.indexed(count: 2_000, gyro: gyro)   // 20 s at 100 Hz
        let path = try dir.writeGzip("walk.csv.gz", IMUTestTraces.csv(trace, gyro: gyro))
        let clock = IMUManualClock(realPause: 0.0002)
        let service = try IMUService(spec: .parse("replay:\(path)"), config: IMUServiceConfig(),
                                     clock: clock.imuClock)
        #expect(service.status.hasGyro == gyro)
        var samples: [IMUSample] = []
        var sawEnd = false
        var healthBeforeEnd: Set<IMUHealth> = []
        service.start()
        for await batch in service.batches {
            samples += batch.samples
            if batch.endOfTrace {
                sawEnd = true
                break
            }
            healthBeforeEnd.insert(batch.health)
        }
        let status = service.status
        service.stop()
        #expect(sawEnd)
        #expect(healthBeforeEnd == [.ok])
        #expect(status.endOfTrace && status.health == .lost)
        #expect(status.counters.samples == samples.count)
        #expect(status.counters.busErrors == 0 && status.counters.fifoResets == 0)

        // Every trace sample from the first one the device saw to the very last, in order,
        // each within half an LSB, stamped exactly one period apart.
        let first = try #require(samples.first.flatMap { IMUTestTraces.index(of: $0) })
        #expect(first <= 2)
        #expect(samples.count == trace.count - first)
        let lsbA = 0.5 / AccelRange.g8.lsbPerG + 1e-12
        let lsbG = 0.5 / GyroRange.dps1000.lsbPerRadianPerSecond + 1e-12
        var bad = 0
        for (i, s) in samples.enumerated() {
            let want = trace[first + i]
            if IMUTestTraces.index(of: s) != first + i { bad += 1 }
            if abs(s.ay - want.ay) > lsbA || abs(s.az - want.az) > lsbA { bad += 1 }
            if gyro {
                if abs(s.gx - want.gx) > lsbG || abs(s.gy - want.gy) > lsbG || abs(s.gz - want.gz) > lsbG { bad += 1 }
            } else if s.hasGyro || !s.gx.isNaN {
                bad += 1
            }
            if abs((s.t - samples[0].t) - Double(i) / 100) > 1e-9 { bad += 1 }
        }
        #expect(bad == 0)
    }

    @Test func eioBurstDegradesThenRecovers() async throws {
        let clock = IMUManualClock(realPause: 0.0002)
        let (service, emulator) = Self.emulatorService(clock, trace: IMUTestTraces.indexed(count: 3_000))
        let got = Self.collect(service)
        service.start()
        defer { service.stop() }
        #expect(await imuWait { service.health == .ok && got.samples.count > 100 })
        emulator.failNextReads(8)
        #expect(await imuWait { service.counters.busErrors >= 8 })
        #expect(got.batches.contains { $0.health != .ok })
        #expect(await imuWait { emulator.stats.deviceResets >= 2 })   // three faults in a row → re-init
        let recoveredFrom = got.samples.count
        #expect(await imuWait { service.health == .ok && got.samples.count > recoveredFrom + 100 })
        let status = service.status
        #expect(status.counters.initializations >= 2)
        #expect(status.lastError?.contains("EIO") == true)
        // Time never runs backwards across the recovery.
        let s = got.samples
        for (a, b) in zip(s, s.dropFirst()) { #expect(b.t > a.t) }
    }

    @Test func absentDeviceIsLostWithBackoffAndComesBack() async throws {
        let clock = IMUManualClock(realPause: 0.0002)
        let (service, emulator) = Self.emulatorService(clock, trace: IMUTestTraces.indexed(count: 3_000))
        let got = Self.collect(service)
        service.start()
        defer { service.stop() }
        #expect(await imuWait { service.health == .ok })
        emulator.isPresent = false
        #expect(await imuWait { service.health == .lost })
        let lostAt = clock.now
        let failuresAtLoss = service.counters.initFailures
        #expect(await imuWait { clock.now > lostAt + 40 })
        // Back-off 0.5, 1, 2, 4, 8, 8 … s: about 8 attempts in 40 s, not one per poll (800).
        let attempts = service.counters.initFailures - failuresAtLoss
        #expect(attempts >= 5 && attempts <= 10, "\(attempts) init attempts in 40 s")
        #expect(service.status.lastError?.contains("no acknowledge") == true)
        #expect(got.batches.contains { $0.health == .lost && $0.samples.isEmpty })
        emulator.isPresent = true
        let back = got.samples.count
        #expect(await imuWait { got.samples.count > back + 50 })
        #expect(await imuWait { service.health == .ok })
    }

    @Test func stuckFIFOCountIsDetectedAndRecovered() async throws {
        let clock = IMUManualClock(realPause: 0.0002)
        let (service, emulator) = Self.emulatorService(clock, trace: IMUTestTraces.indexed(count: 3_000))
        let got = Self.collect(service)
        service.start()
        defer { service.stop() }
        #expect(await imuWait { service.health == .ok && got.samples.count > 50 })
        emulator.stickFIFOCount(at: 0)              // a dead count: the FIFO looks empty forever
        #expect(await imuWait { service.counters.fifoResets >= 3 })
        #expect(await imuWait { service.health != .ok })
        #expect(await imuWait { service.counters.initializations >= 2 })
        emulator.stickFIFOCount(at: nil)
        let resumed = got.samples.count
        #expect(await imuWait { got.samples.count > resumed + 100 })
        #expect(await imuWait { service.health == .ok })
    }

    @Test func overflowWhileStalledIsCountedAndTimestampsStayOnTheGrid() async throws {
        let clock = IMUManualClock(realPause: 0.0002)
        let (service, emulator) = Self.emulatorService(clock, trace: IMUTestTraces.indexed(count: 30_000))
        let got = Self.collect(service)
        service.start()
        defer { service.stop() }
        #expect(await imuWait { got.samples.count > 100 })
        emulator.forceOverflow()
        #expect(await imuWait { service.counters.overflows >= 1 })
        let after = got.samples.count
        #expect(await imuWait { got.samples.count > after + 100 })
        let s = got.samples
        let t0 = try #require(s.first).t
        let k0 = try #require(IMUTestTraces.index(of: s[0]))
        var off = 0
        for x in s {
            // Sample k of the trace is always stamped k/100 s after sample k0.
            if let k = IMUTestTraces.index(of: x), abs((x.t - t0) - Double(k - k0) / 100) > 1e-9 { off += 1 }
        }
        #expect(off == 0)
        #expect(got.batches.contains { $0.lostBefore > 0 })
    }

    @Test func stopEndsTheThreadPromptly() async throws {
        let clock = IMUManualClock(realPause: 0.0005)
        var config = IMUServiceConfig()
        config.maxBackoff = 8
        let (service, emulator) = Self.emulatorService(clock, trace: IMUTestTraces.indexed(count: 100), config: config)
        emulator.isPresent = false                     // sitting in a long back-off
        service.start()
        #expect(await imuWait { service.counters.initFailures >= 6 })
        let started = Date()
        service.stop()
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(!service.status.running)
        var count = 0
        for await _ in service.batches { count += 1 }  // the stream has finished
        #expect(count >= 1)
    }

    @Test func missingI2CBusNeverCrashesAndReportsThePath() async throws {
        let clock = IMUManualClock(realPause: 0.0002)
        let service = try IMUService(spec: .parse("i2c:/dev/i2c-97@0x69"), config: IMUServiceConfig(),
                                     clock: clock.imuClock)
        service.start()
        defer { service.stop() }
        #expect(await imuWait { service.counters.initFailures >= 2 })
        let status = service.status
        #expect(status.health == .lost)
        #expect(status.lastError?.contains("/dev/i2c-97") == true)
    }

    @Test func missingReplayFileIsAnImmediateError() {
        #expect(throws: IMUTraceError.self) {
            _ = try IMUService(spec: .replay(path: "/nonexistent/trace.csv", speed: 1, loop: false),
                               config: IMUServiceConfig(), clock: IMUManualClock().imuClock)
        }
    }

    @Test func loopingReplayNeverEnds() async throws {
        let dir = IMUTempDir()
        let trace = IMUTestTraces.indexed(count: 200)   // 2 s
        let path = try dir.write("short.csv", IMUTestTraces.csv(trace, gyro: true))
        let clock = IMUManualClock(realPause: 0.0002)
        let service = try IMUService(spec: .parse("replay:\(path),loop"), config: IMUServiceConfig(),
                                     clock: clock.imuClock)
        let got = Self.collect(service)
        service.start()
        defer { service.stop() }
        #expect(await imuWait { (service.emulator?.traceLoops ?? 0) >= 3 && got.samples.count > 600 })
        #expect(!service.status.endOfTrace)
        let s = got.samples
        for (a, b) in zip(s, s.dropFirst()) { #expect(abs(b.t - a.t - 0.01) < 1e-9) }
    }
}

/// The same path on the real (accelerated) engine clock, with real thread timing.
@Suite("IMU service in real time")
struct IMUServiceRealTimeTests {
    @Test func replayOnTheEngineClockKeepsUpWithoutFaults() async throws {
        let engine = EngineClock(speed: 5)
        let clock = IMUClock.engine(engine)
        let trace = IMUTestTraces.indexed(count: 20_000)
        let emulator = MPU6050Emulator(clock: clock.now, samples: trace, resampling: .hold)
        let service = IMUService(bus: { () throws(I2CError) -> any I2CBus in emulator }, config: IMUServiceConfig(),
                                 clock: clock, source: "realtime", emulator: emulator)
        let start = engine.now()
        service.start()
        var samples: [IMUSample] = []
        for await batch in service.batches {
            samples += batch.samples
            if engine.now() - start > 6 { break }   // 1.2 s of real time
        }
        let status = service.status
        service.stop()
        #expect(status.counters.busErrors == 0)
        #expect(status.counters.initializations == 1)
        // Under heavy CPU contention an overflow is legitimate; then it must be accounted for.
        let produced = samples.count + status.counters.lostSamples
        let k0 = try #require(samples.first.flatMap { IMUTestTraces.index(of: $0) })
        let kLast = try #require(samples.last.flatMap { IMUTestTraces.index(of: $0) })
        #expect(abs(produced - (kLast - k0 + 1)) <= 1)
        #expect(samples.count > 400)
        for (a, b) in zip(samples, samples.dropFirst()) {
            #expect(b.t > a.t)
            let ka = IMUTestTraces.index(of: a) ?? -1
            let kb = IMUTestTraces.index(of: b) ?? -1
            // Stamps follow the sample clock: the trace-index step times 10 ms, within the
            // driver's clock slack.
            #expect(abs((b.t - a.t) - Double(kb - ka) / 100) < 0.003)
        }
    }
}
