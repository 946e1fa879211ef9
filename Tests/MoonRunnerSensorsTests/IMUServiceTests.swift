import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

/// The IMU service on its own thread, driving the emulator on a fast virtual clock.
///
/// Only the service thread moves the virtual clock, so what it does is a function of
/// virtual time alone; these tests keep it that way whatever else loads the CPU or the
/// cooperative pool: faults are scheduled on the virtual timeline (`clock.at`), what is
/// checked mid-run is captured there too, and the clock stops at a horizon, after which
/// the service is stopped and the whole stream drained. Nothing depends on when the test
/// task or the batch consumer happen to get a thread.
@Suite("IMU service")
struct IMUServiceTests {
    /// Everything one run delivered, after the stream has finished.
    struct Run {
        var batches: [IMUBatch]
        var status: IMUServiceStatus
        var samples: [IMUSample] { batches.flatMap(\.samples) }
        /// Samples delivered at or after engine time `t`.
        func samples(after t: Double) -> [IMUSample] { samples.filter { $0.t >= t } }
    }

    static let start = 1_000.0

    static func emulatorService(_ clock: IMUManualClock, trace: [IMUSample], loop: Bool = false,
                                config: IMUServiceConfig = IMUServiceConfig())
        -> (IMUService, MPU6050Emulator) {
        let emulator = MPU6050Emulator(clock: { clock.now }, samples: trace, loop: loop)
        let service = IMUService(bus: { () throws(I2CError) -> any I2CBus in emulator }, config: config,
                                 clock: clock.imuClock, source: "test", emulator: emulator)
        return (service, emulator)
    }

    /// Runs `service` until its clock reaches `horizon`, stops it and drains the stream.
    static func run(_ service: IMUService, _ clock: IMUManualClock, until horizon: Double) async -> Run {
        clock.horizon = horizon
        let stream = service.batches
        let drain = Task.detached { () -> [IMUBatch] in
            var all: [IMUBatch] = []
            for await b in stream { all.append(b) }
            return all
        }
        service.start()
        // Real time only bounds how long a broken service may take; 30–75 s of virtual
        // time normally pass in well under a second.
        let reached = await imuWait(timeout: 120) { clock.now >= horizon }
        #expect(reached, "virtual clock stuck at \(clock.now), horizon \(horizon)")
        service.stop()
        let batches = await drain.value
        let status = service.status
        #expect(status.counters.droppedBatches == 0)
        #expect(batches.reduce(0) { $0 + $1.samples.count } == status.counters.samples)
        return Run(batches: batches, status: status)
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
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        let (service, emulator) = Self.emulatorService(clock, trace: IMUTestTraces.indexed(count: 6_000))
        let fault = Self.start + 10
        let atFault = IMUBox<IMUServiceStatus?>(nil)
        clock.at(fault) {
            atFault.set(service.status)
            emulator.failNextReads(8)
        }
        // 3 failed reads, then re-init attempts after 0.5, 1, 2, 4 and 8 s of back-off
        // use up the other 5: the device is back about 24 s after the fault.
        let run = await Self.run(service, clock, until: fault + 40)
        let before = try #require(atFault.get)
        #expect(before.health == .ok && before.counters.samples > 900)
        let status = run.status
        #expect(status.counters.busErrors == 8)
        #expect(run.batches.contains { $0.health != .ok })
        #expect(emulator.stats.deviceResets >= 2)             // three faults in a row → re-init
        #expect(status.counters.initializations >= 2)
        #expect(status.lastError?.contains("EIO") == true)
        // Recovered: data flows again and health is back to ok.
        #expect(run.samples(after: fault + 25).count > 1_000)
        #expect(status.health == .ok && run.batches.last?.health == .ok)
        // Time never runs backwards across the recovery.
        let s = run.samples
        #expect(zip(s, s.dropFirst()).allSatisfy { $0.1.t > $0.0.t })
    }

    @Test func absentDeviceIsLostWithBackoffAndComesBack() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        let (service, emulator) = Self.emulatorService(clock, trace: IMUTestTraces.indexed(count: 10_000))
        let unplug = Self.start + 5, replug = Self.start + 50
        let atUnplug = IMUBox<IMUServiceStatus?>(nil)
        let whileAbsent = IMUBox<IMUServiceStatus?>(nil)
        clock.at(unplug) {
            atUnplug.set(service.status)
            emulator.isPresent = false
        }
        clock.at(unplug + 40) { whileAbsent.set(service.status) }
        clock.at(replug) { emulator.isPresent = true }
        let run = await Self.run(service, clock, until: Self.start + 75)

        #expect(atUnplug.get?.health == .ok)
        let absent = try #require(whileAbsent.get)
        #expect(absent.health == .lost)
        #expect(absent.lastError?.contains("no acknowledge") == true)
        // Back-off 0.5, 1, 2, 4, 8, 8 … s: about 8 attempts in 40 s, not one per poll (800).
        let attempts = absent.counters.initFailures - (atUnplug.get?.counters.initFailures ?? 0)
        #expect(attempts >= 5 && attempts <= 10, "\(attempts) init attempts in 40 s")
        #expect(run.batches.contains { $0.health == .lost && $0.samples.isEmpty })
        // Back after the device returns (within one back-off step of 8 s).
        #expect(run.samples(after: replug).count > 1_000)
        #expect(run.status.health == .ok)
    }

    @Test func stuckFIFOCountIsDetectedAndRecovered() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        let (service, emulator) = Self.emulatorService(clock, trace: IMUTestTraces.indexed(count: 4_000))
        let stuck = Self.start + 5, unstuck = Self.start + 15
        let whileStuck = IMUBox<IMUServiceStatus?>(nil)
        clock.at(stuck) { emulator.stickFIFOCount(at: 0) }   // a dead count: the FIFO looks empty forever
        clock.at(unstuck) {
            whileStuck.set(service.status)
            emulator.stickFIFOCount(at: nil)
        }
        let run = await Self.run(service, clock, until: Self.start + 35)
        let during = try #require(whileStuck.get)
        #expect(during.counters.fifoResets >= 3)
        #expect(during.health != .ok)
        #expect(during.counters.initializations >= 2)
        #expect(run.samples(after: unstuck).count > 1_000)
        #expect(run.status.health == .ok)
    }

    /// A forced overflow (the FIFO filled behind the driver's back) and a real one (the
    /// service thread stalled for 2 s): both counted, every delivered sample still on the
    /// sample clock, and the gaps exactly the samples reported lost.
    /// The first reset also has the thread preempted right after it re-enables the FIFO.
    @Test func overflowWhileStalledIsCountedAndTimestampsStayOnTheGrid() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        let emulator = MPU6050Emulator(clock: { clock.now }, samples: IMUTestTraces.indexed(count: 6_000))
        let bus = IMUStallingBus(emulator, clock: clock)
        let service = IMUService(bus: { () throws(I2CError) -> any I2CBus in bus }, config: IMUServiceConfig(),
                                 clock: clock.imuClock, source: "test", emulator: emulator)
        clock.at(Self.start + 10) {
            emulator.forceOverflow()
            bus.stall(after: .write(register: MPU6050Register.userCtrl, value: MPU6050Bits.userFIFOEnable), for: 0.015)
        }
        clock.at(Self.start + 20) { clock.advance(2) }       // the service thread stalls in its sleep
        let run = await Self.run(service, clock, until: Self.start + 30)
        #expect(emulator.traceLoops == 0 && !emulator.isEndOfTrace)
        let status = run.status
        #expect(status.counters.overflows == 2)
        #expect(status.counters.fifoResets == 2)              // and no spurious reset after them
        #expect(status.counters.busErrors == 0 && status.counters.initializations == 1)

        let s = run.samples
        let t0 = try #require(s.first).t
        let k0 = try #require(IMUTestTraces.index(of: s[0]))
        var off = 0, unknown = 0
        for x in s {
            // Sample k of the trace is always stamped k/100 s after sample k0.
            guard let k = IMUTestTraces.index(of: x) else {
                unknown += 1
                continue
            }
            if abs((x.t - t0) - Double(k - k0) / 100) > 1e-9 { off += 1 }
        }
        #expect(off == 0 && unknown == 0, "\(off) samples off the grid, \(unknown) not from the trace")
        let kLast = try #require(s.last.flatMap { IMUTestTraces.index(of: $0) })
        let lost = run.batches.reduce(0) { $0 + $1.lostBefore }
        #expect(run.batches.filter { $0.lostBefore > 0 }.count >= 2)
        #expect(s.count + lost == kLast - k0 + 1, "\(s.count) delivered + \(lost) lost")
        #expect(lost == status.counters.lostSamples)
        #expect(lost >= 200)                                  // the 2 s stall alone
        #expect(run.samples(after: Self.start + 22.5).count > 600)
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

    /// After the trace has played out the thread has nothing to do: it must neither poll
    /// (on a virtual clock every poll would move time) nor touch the bus, and still stop
    /// at once.
    @Test func afterTheEndOfTheTraceTheThreadIdlesUntilStopped() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        let (service, emulator) = Self.emulatorService(clock, trace: IMUTestTraces.indexed(count: 300))
        let stream = service.batches
        let drain = Task.detached { () -> [IMUBatch] in
            var all: [IMUBatch] = []
            for await b in stream { all.append(b) }
            return all
        }
        service.start()
        #expect(await imuWait(timeout: 60) { service.status.endOfTrace })
        let idleFrom = (clock.now, emulator.stats.transactions)
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(clock.now == idleFrom.0, "the thread kept sleeping on the clock after the end")
        #expect(emulator.stats.transactions == idleFrom.1, "the thread kept using the bus after the end")
        #expect(service.status.running)
        let started = Date()
        service.stop()
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(!service.status.running)
        let batches = await drain.value
        #expect(batches.last?.endOfTrace == true)
        #expect(batches.reduce(0) { $0 + $1.samples.count } == service.counters.samples)
    }

    /// Before a trace on the receiver's clock is due the device holds its first sample,
    /// after its end its last: the session gets the recording, each sample once.
    @Test func replayOnTheReceiversClockDeliversTheRecordingAlone() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        // The first sample 2.0037 s after bring-up: between two ticks of the sample clock.
        let unix = 1_700_000_000.0
        let trace = IMUTestTraces.indexed(count: 500, t0: unix + 0.0037)
        let emulator = MPU6050Emulator(clock: { clock.now }, source: ArraySampleSource(trace),
                                       receiverOffset: { unix - Self.start - 2 })
        let service = IMUService(bus: { () throws(I2CError) -> any I2CBus in emulator }, config: IMUServiceConfig(),
                                 clock: clock.imuClock, source: "test", emulator: emulator)
        let stream = service.batches
        let drain = Task.detached { () -> [IMUBatch] in
            var all: [IMUBatch] = []
            for await b in stream { all.append(b) }
            return all
        }
        service.start()
        #expect(await imuWait(timeout: 60) { service.status.endOfTrace })
        service.stop()
        let samples = await drain.value.flatMap(\.samples)
        #expect(samples.map { IMUTestTraces.index(of: $0) } == Array(0..<trace.count))
        #expect(service.counters.samples == trace.count)
        let read = emulator.fifoBytesRead
        #expect(read.beforeTrace > 100 * 12, "the held first sample was not read: \(read)")
        #expect(read.ofTrace == trace.count * 12 && read.afterTrace > 0, "\(read)")
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
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        let service = try IMUService(spec: .parse("replay:\(path),loop"), config: IMUServiceConfig(),
                                     clock: clock.imuClock)
        let run = await Self.run(service, clock, until: Self.start + 7.5)
        #expect((service.emulator?.traceLoops ?? 0) >= 3)
        #expect(!run.status.endOfTrace && !run.batches.contains { $0.endOfTrace })
        let s = run.samples
        #expect(s.count > 650)
        #expect(zip(s, s.dropFirst()).allSatisfy { abs($0.1.t - $0.0.t - 0.01) < 1e-9 })
        // Every trace sample comes round again in order: index k is followed by k+1, and
        // the last one (199) by the first (0).
        let order = s.compactMap { IMUTestTraces.index(of: $0) }
        #expect(order.count == s.count)
        #expect(zip(order, order.dropFirst()).allSatisfy { $0.1 == ($0.0 + 1) % 200 })
    }
}

/// The same path on the real (accelerated) engine clock, with real thread timing.
///
/// Real timing is the point here, so CPU load is allowed to show (a stalled service
/// thread may overflow the FIFO); what must hold regardless is that every delivered
/// sample is a trace sample, stamped on the sample clock, and that every gap is accounted
/// for. The run length is measured by the service's own progress, and the stream is
/// drained completely after stop(), so a test task or consumer that gets no thread for a
/// while (other tests blocking the cooperative pool) changes nothing.
@Suite("IMU service in real time")
struct IMUServiceRealTimeTests {
    @Test func replayOnTheEngineClockKeepsUpWithoutFaults() async throws {
        let engine = EngineClock(speed: 5)
        let clock = IMUClock.engine(engine)
        let trace = IMUTestTraces.indexed(count: 200_000)     // 2000 s: never runs out here
        let emulator = MPU6050Emulator(clock: clock.now, samples: trace, resampling: .hold)
        var config = IMUServiceConfig()
        config.bufferedBatches = 1_000_000                     // keep everything, however late we read
        let service = IMUService(bus: { () throws(I2CError) -> any I2CBus in emulator }, config: config,
                                 clock: clock, source: "realtime", emulator: emulator)
        let stream = service.batches
        let drain = Task.detached { () -> [IMUBatch] in
            var all: [IMUBatch] = []
            for await b in stream { all.append(b) }
            return all
        }
        service.start()
        // 6 s of engine time (1.2 s real) worth of samples, whenever this task gets to look.
        let ran = await imuWait(timeout: 120) {
            let c = service.counters
            return c.samples + c.lostSamples >= 600
        }
        service.stop()
        let batches = await drain.value
        let status = service.status
        #expect(ran)
        #expect(!status.running)
        #expect(status.counters.busErrors == 0)
        #expect(status.counters.initializations == 1)
        #expect(status.counters.droppedBatches == 0)

        let samples = batches.flatMap(\.samples)
        #expect(samples.count == status.counters.samples)
        #expect(samples.count > 400)
        // Every delivered sample is one of the trace's, in order.
        let indices = samples.compactMap { IMUTestTraces.index(of: $0) }
        #expect(indices.count == samples.count, "\(samples.count - indices.count) samples not from the trace")
        let k0 = try #require(indices.first)
        let kLast = try #require(indices.last)
        // Under heavy CPU contention an overflow is legitimate; then it must be accounted
        // for: the samples lost before the last delivered one fill the gaps exactly.
        let lastWithSamples = try #require(batches.lastIndex { !$0.samples.isEmpty })
        let lost = batches[...lastWithSamples].reduce(0) { $0 + $1.lostBefore }
        #expect(samples.count + lost == kLast - k0 + 1, "\(samples.count) delivered + \(lost) lost")
        var unordered = 0, offGrid = 0
        for i in indices.indices.dropFirst() {
            let (a, b) = (samples[i - 1], samples[i])
            if indices[i] <= indices[i - 1] || b.t <= a.t { unordered += 1 }
            // Stamps follow the sample clock: the trace-index step times 10 ms, within the
            // driver's clock slack.
            if abs((b.t - a.t) - Double(indices[i] - indices[i - 1]) / 100) >= 0.003 { offGrid += 1 }
        }
        #expect(unordered == 0)
        #expect(offGrid == 0, "\(offGrid) steps off the sample clock (overflows: \(status.counters.overflows))")
    }
}
