import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

/// The MPU-6050 driver against the register-level emulator on a stepped clock.
@Suite("MPU-6050 driver")
struct IMUDriverTests {
    struct Rig {
        let clock = IMUManualClock()
        let emulator: MPU6050Emulator
        /// Between driver and emulator: injects thread stalls at chosen transfers.
        let bus: IMUStallingBus
        let driver: MPU6050Driver
        let trace: [IMUSample]

        init(model: MPU6050Model = .mpu6050, address: UInt8 = 0x68, deviceAddress: UInt8? = nil,
             config: MPU6050Config = MPU6050Config(), trace: [IMUSample]? = nil, traceRate: Double = 100) {
            let samples = trace ?? IMUTestTraces.indexed(count: 3_000, rate: traceRate, gyro: config.gyroEnabled)
            self.trace = samples
            let c = clock
            emulator = MPU6050Emulator(model: model, address: deviceAddress ?? address,
                                       clock: { c.now }, samples: samples)
            var cfg = config
            cfg.address = address
            bus = IMUStallingBus(emulator, clock: c)
            driver = MPU6050Driver(bus: bus, config: cfg, clock: clock.imuClock)
        }

        /// Advances the clock in `step`s for `seconds`, reading the FIFO after each step.
        func stream(_ seconds: Double, step: Double = 0.05) throws -> (samples: [IMUSample], reports: [FIFOReadReport]) {
            var out: [IMUSample] = []
            var reports: [FIFOReadReport] = []
            for _ in 0..<Int((seconds / step).rounded()) {
                clock.advance(step)
                reports.append(try driver.readFIFO(into: &out))
            }
            return (out, reports)
        }
    }

    // MARK: Bring-up

    @Test(arguments: [(MPU6050Model.mpu6050, UInt8(0x68)), (.mpu6500, 0x68), (.mpu9250, 0x68), (.mpu6050, 0x69)])
    func initialisesEveryModelAndAddress(model: MPU6050Model, address: UInt8) throws {
        let rig = Rig(model: model, address: address)
        try rig.driver.initialize()
        #expect(rig.driver.model == model)
        let e = rig.emulator
        #expect(e.stats.deviceResets == 1)
        #expect(e.peekRegister(MPU6050Register.pwrMgmt1) == MPU6050Bits.clockPLLGyroX)   // awake, PLL
        #expect(e.peekRegister(MPU6050Register.smplrtDiv) == 9)                         // 1000/(1+9) = 100 Hz
        #expect(e.peekRegister(MPU6050Register.config) == 3)                            // 42 Hz < 50 Hz
        #expect(e.peekRegister(MPU6050Register.accelConfig) == AccelRange.g8.registerValue)
        #expect(e.peekRegister(MPU6050Register.gyroConfig) == GyroRange.dps1000.registerValue)
        #expect(e.peekRegister(MPU6050Register.fifoEnable) == 0x78)                     // accel + 3 gyro axes
        #expect(e.peekRegister(MPU6050Register.userCtrl) & MPU6050Bits.userFIFOEnable != 0)
        #expect(e.peekRegister(MPU6050Register.accelConfig2) == (model == .mpu6050 ? 0 : 3))
        #expect(e.sampleRate == 100)
        let (samples, _) = try rig.stream(0.5)
        #expect(samples.count == 50)
    }

    @Test func absentAddressIsANack() throws {
        let rig = Rig(address: 0x68, deviceAddress: 0x69)
        #expect(throws: IMUDriverError.bus(.nack(address: 0x68))) { try rig.driver.initialize() }
        #expect(!rig.driver.isInitialized)
    }

    @Test func wrongWhoAmIIsAClearError() throws {
        let rig = Rig()
        rig.emulator.whoAmIOverride = 0x12
        do {
            try rig.driver.initialize()
            Issue.record("an unknown WHO_AM_I must be refused")
        } catch {
            #expect(error == .unknownDevice(whoAmI: 0x12, address: 0x68))
            #expect(error.description.contains("0x12"))
            #expect(error.description.contains("0x71"))
        }
        #expect(rig.emulator.stats.deviceResets == 0)   // never touched an unknown device
    }

    @Test func rateChoosesDividerAndFilter() {
        let table: [(Double, UInt8, UInt8, Double)] = [
            (100, 9, 3, 100), (200, 4, 2, 200), (50, 19, 4, 50), (1000, 0, 1, 1000),
            (25, 39, 5, 25), (10, 99, 6, 10), (1, 255, 6, 1000.0 / 256), (5000, 0, 1, 1000),
        ]
        for (rate, div, dlpf, actual) in table {
            let s = MPU6050RateSettings(rate: rate)
            #expect(s.divider == div, "rate \(rate)")
            #expect(s.dlpf == dlpf, "rate \(rate)")
            #expect(abs(s.sampleRate - actual) < 1e-9, "rate \(rate)")
        }
        // Every rate: the filter stays below Nyquist and the rate is the nearest reachable one.
        for rate in stride(from: 4.0, through: 1000, by: 0.7) {
            let s = MPU6050RateSettings(rate: rate)
            let bw = MPU6050RateSettings.dlpfBandwidths.first { $0.cfg == s.dlpf }?.hz ?? .infinity
            #expect(bw <= s.sampleRate / 2 || s.dlpf == 6)
            let neighbours = [Double(s.divider) - 1, Double(s.divider) + 1].filter { $0 >= 0 && $0 <= 255 }
            for d in neighbours {
                #expect(abs(1000 / (1 + Double(s.divider)) - rate) <= abs(1000 / (1 + d) - rate) + 1e-9)
            }
        }
    }

    @Test func emulatorRunsAtTheRateTheDriverChose() throws {
        let rig = Rig(config: MPU6050Config(sampleRate: 200))
        try rig.driver.initialize()
        #expect(rig.emulator.sampleRate == 200)
        let (samples, _) = try rig.stream(1.0)
        #expect(samples.count == 200)
        for (a, b) in zip(samples, samples.dropFirst()) {
            #expect(abs(b.t - a.t - 0.005) < 1e-9)
        }
    }

    // MARK: Scaling

    @Test(arguments: AccelRange.allCases)
    func accelerationRoundTripsWithinOneLSB(range: AccelRange) throws {
        let values = [0.0, 0.731, -1.0, 1.999, -range.fullScale * 0.97, range.fullScale * 0.5]
        var trace = values.enumerated().map { i, a in
            IMUSample(t: Double(i) * 0.01, ax: a, ay: -a / 2, az: 1 - a / 3, gx: 0, gy: 0, gz: 0)
        }
        trace.append(IMUSample(t: 0.06, ax: range.fullScale * 1.5, ay: -range.fullScale * 3, az: 0, gx: 0, gy: 0, gz: 0))
        let rig = Rig(config: MPU6050Config(accelRange: range), trace: trace)
        try rig.driver.initialize()
        let (out, _) = try rig.stream(0.2, step: 0.01)
        let lsb = 1 / range.lsbPerG
        // Compare through the trace time the emulator played (values held after the end).
        let wake = try #require(rig.emulator.traceStartTime)
        for s in out {
            let k = Int(((s.t - wake) * 100).rounded())
            guard k < trace.count else { break }
            let want = trace[k]
            let sat = { (v: Double) in min(max(v, -32767 * lsb), 32767 * lsb) }
            #expect(abs(s.ax - sat(want.ax)) <= lsb / 2 + 1e-12, "ax \(want.ax) at \(range)")
            #expect(abs(s.ay - sat(want.ay)) <= lsb / 2 + 1e-12)
            #expect(abs(s.az - sat(want.az)) <= lsb / 2 + 1e-12)
        }
        #expect(out.contains { abs($0.ax - 32767 * lsb) < 1e-12 })       // saturated high
        #expect(out.contains { abs($0.ay + 32767 * lsb) < 1e-12 })       // saturated low
    }

    @Test(arguments: GyroRange.allCases)
    func rotationRoundTripsWithinOneLSB(range: GyroRange) throws {
        let full = range.fullScale * Double.pi / 180
        let values = [0.0, 0.01, -1.234, full * 0.9, -full * 0.3]
        let trace = values.enumerated().map { i, g in
            IMUSample(t: Double(i) * 0.01, ax: 0, ay: 0, az: 1, gx: g, gy: -g, gz: g / 7)
        }
        let rig = Rig(config: MPU6050Config(gyroRange: range), trace: trace)
        try rig.driver.initialize()
        let (out, _) = try rig.stream(0.03, step: 0.01)
        let lsb = 1 / range.lsbPerRadianPerSecond
        let wake = try #require(rig.emulator.traceStartTime)
        for s in out {
            let k = Int(((s.t - wake) * 100).rounded())
            let want = trace[k]
            #expect(abs(s.gx - want.gx) <= lsb / 2 + 1e-12, "gx \(want.gx) at \(range)")
            #expect(abs(s.gy - want.gy) <= lsb / 2 + 1e-12)
            #expect(abs(s.gz - want.gz) <= lsb / 2 + 1e-12)
        }
        #expect(out.count == 3)
    }

    // MARK: FIFO streaming

    @Test func fifoBurstsYieldTheTraceInOrderOnTheSampleClock() throws {
        let rig = Rig()
        try rig.driver.initialize()
        let (out, reports) = try rig.stream(10, step: 0.0725)   // frames per read vary on purpose
        #expect(reports.allSatisfy { $0.anomaly == nil && $0.lostSamples == 0 && $0.clockCorrection == 0 })
        #expect(out.count == 1000)
        let lsbA = 1 / AccelRange.g8.lsbPerG
        let lsbG = 1 / GyroRange.dps1000.lsbPerRadianPerSecond
        var previous: Int?
        for s in out {
            let k = try #require(IMUTestTraces.index(of: s))
            if let p = previous { #expect(k == p + 1) }
            previous = k
            let want = rig.trace[k]
            #expect(abs(s.ay - want.ay) <= lsbA / 2 + 1e-12)
            #expect(abs(s.az - want.az) <= lsbA / 2 + 1e-12)
            #expect(abs(s.gx - want.gx) <= lsbG / 2 + 1e-12)
            #expect(abs(s.gy - want.gy) <= lsbG / 2 + 1e-12)
            #expect(abs(s.gz - want.gz) <= lsbG / 2 + 1e-12)
            // Timestamp from the sample clock: same offset from the trace for every sample.
            #expect(abs((s.t - out[0].t) - (want.t - rig.trace[IMUTestTraces.index(of: out[0])!].t)) < 1e-9)
        }
    }

    @Test func accelerometerOnlyUsesSixByteFramesAndNaNGyro() throws {
        let rig = Rig(config: MPU6050Config(gyroEnabled: false))
        try rig.driver.initialize()
        #expect(rig.driver.frameSize == 6)
        #expect(rig.emulator.peekRegister(MPU6050Register.fifoEnable) == MPU6050Bits.fifoAccel)
        #expect(rig.emulator.peekRegister(MPU6050Register.pwrMgmt2) == MPU6050Bits.standbyGyro)
        let (out, _) = try rig.stream(1)
        #expect(out.count == 100)
        #expect(out.allSatisfy { !$0.hasGyro && IMUTestTraces.index(of: $0) != nil })
    }

    @Test func traceAtAnotherRateIsResampled() throws {
        // A 50 Hz trace read at 100 Hz: every other sample is the midpoint of its neighbours.
        let trace = (0..<200).map { k in
            IMUSample(t: Double(k) * 0.02, ax: Double(k % 7) * 0.25, ay: 0, az: 1, gx: 0, gy: 0, gz: 0)
        }
        let rig = Rig(trace: trace)
        try rig.driver.initialize()
        let (out, _) = try rig.stream(1)
        let wake = try #require(rig.emulator.traceStartTime)
        for s in out {
            let x = s.t - wake                 // trace time the device sampled
            let i = Int((x / 0.02).rounded(.down))
            let w = x / 0.02 - Double(i)
            let want = trace[i].ax + (trace[i + 1].ax - trace[i].ax) * w
            #expect(abs(s.ax - want) <= 0.5 / AccelRange.g8.lsbPerG + 1e-9)
        }
    }

    // MARK: Faults

    @Test func overflowResetsTheFIFOAndKeepsTimeAlignment() throws {
        let rig = Rig()
        try rig.driver.initialize()
        let (before, _) = try rig.stream(1)
        rig.clock.advance(2.0)                 // nobody reads for 2 s: 200 samples > 85 frames
        var out: [IMUSample] = []
        let report = try rig.driver.readFIFO(into: &out)
        guard case .overflow = report.anomaly else {
            Issue.record("expected an overflow, got \(String(describing: report.anomaly))")
            return
        }
        #expect(out.isEmpty)
        let (after, reports) = try rig.stream(1)
        #expect(reports.allSatisfy { $0.anomaly == nil })
        let last = try #require(before.last)
        let first = try #require(after.first)
        let kLast = try #require(IMUTestTraces.index(of: last))
        let kFirst = try #require(IMUTestTraces.index(of: first))
        // The index jump equals the samples reported lost, and the timestamps jump with it.
        #expect(kFirst - kLast - 1 == report.lostSamples)
        #expect(report.lostSamples >= 200)
        #expect(abs((first.t - last.t) - Double(kFirst - kLast) / 100) < 1e-9)
        #expect(rig.emulator.stats.overflows == 1)
    }

    @Test func forcedOverflowIsDetectedAndRecovered() throws {
        let rig = Rig()
        try rig.driver.initialize()
        let (before, _) = try rig.stream(0.5)
        rig.emulator.forceOverflow()
        let (after, reports) = try rig.stream(0.5)
        #expect(reports.contains { if case .overflow = $0.anomaly { return true } else { return false } })
        let last = try #require(before.last)
        for s in after {
            let k = try #require(IMUTestTraces.index(of: s))
            let kLast = try #require(IMUTestTraces.index(of: last))
            #expect(abs((s.t - last.t) - Double(k - kLast) / 100) < 1e-9)
        }
        #expect(after.count >= 40)
    }

    /// The thread is preempted right after the write that re-enables the FIFO, so samples
    /// enter the FIFO before the driver reads the clock again. Whatever the stall, the
    /// samples after the reset must keep their place on the sample clock, the next reads
    /// must trust the FIFO, and the samples reported lost must be exactly the gap.
    @Test(arguments: [0.004, 0.0125, 0.015, 0.035, 0.2])
    func stallWhileTheFIFORestartsKeepsTheGrid(stall: Double) throws {
        let rig = Rig()
        try rig.driver.initialize()
        let (before, _) = try rig.stream(1)
        rig.clock.advance(2.0)                   // overflow pending
        rig.bus.stall(after: .write(register: MPU6050Register.userCtrl, value: MPU6050Bits.userFIFOEnable), for: stall)
        var none: [IMUSample] = []
        let reset = try rig.driver.readFIFO(into: &none)
        guard case .overflow = reset.anomaly else {
            Issue.record("expected an overflow, got \(String(describing: reset.anomaly))")
            return
        }
        let (after, reports) = try rig.stream(1, step: 0.0375)
        #expect(reports.allSatisfy { $0.anomaly == nil }, "\(reports.compactMap(\.anomaly))")
        #expect(after.count >= 95)
        let last = try #require(before.last)
        let kLast = try #require(IMUTestTraces.index(of: last))
        let kFirst = try #require(after.first.flatMap { IMUTestTraces.index(of: $0) })
        let lost = reset.lostSamples + reports.reduce(0) { $0 + $1.lostSamples }
        #expect(kFirst - kLast - 1 == lost)
        var off = 0
        for s in after {
            let k = try #require(IMUTestTraces.index(of: s))
            if abs((s.t - last.t) - Double(k - kLast) / 100) > 1e-9 { off += 1 }
        }
        #expect(off == 0, "\(off) of \(after.count) samples off the grid after a \(stall) s stall")
    }

    /// The same stall inside `initialize()`: the first samples are already in the FIFO
    /// when the driver anchors its clock, and must not make it distrust the FIFO.
    @Test(arguments: [0.004, 0.015, 0.2])
    func stallWhileTheFIFOStartsIsNotAFault(stall: Double) throws {
        let rig = Rig()
        rig.bus.stall(after: .write(register: MPU6050Register.userCtrl, value: MPU6050Bits.userFIFOEnable), for: stall)
        try rig.driver.initialize()
        let (out, reports) = try rig.stream(1, step: 0.0375)
        #expect(reports.allSatisfy { $0.anomaly == nil }, "\(reports.compactMap(\.anomaly))")
        #expect(out.count >= 95 + Int(stall * 100))
        let k0 = try #require(out.first.flatMap { IMUTestTraces.index(of: $0) })
        var off = 0
        for (i, s) in out.enumerated() where IMUTestTraces.index(of: s) != k0 + i
            || abs((s.t - out[0].t) - Double(i) / 100) > 1e-9 {
            off += 1
        }
        #expect(off == 0, "\(off) of \(out.count) samples out of order or off the grid")
        // Never stamped in the future.
        #expect((out.last?.t ?? .infinity) <= rig.clock.now + MPU6050Driver.clockSlack)
    }

    /// The thread stalls between latching FIFO_COUNT and draining the FIFO, long enough
    /// for the FIFO to overflow: the device then drops its oldest bytes, so the frames
    /// read are shifted. They must be thrown away, never delivered as samples.
    @Test(arguments: [0.9, 2.0])
    func overflowBetweenCountAndReadIsNotDelivered(stall: Double) throws {
        let rig = Rig()
        try rig.driver.initialize()
        let (before, _) = try rig.stream(0.5)
        rig.clock.advance(0.6)                   // 60 frames waiting, 25 to spare
        rig.bus.stall(after: .read(register: MPU6050Register.fifoCountH), for: stall)
        var out: [IMUSample] = []
        let report = try rig.driver.readFIFO(into: &out)
        #expect(out.isEmpty, "\(out.count) samples (\(out.filter { IMUTestTraces.index(of: $0) == nil }.count) corrupt) read from a FIFO that overflowed under the read")
        guard case .overflow = report.anomaly else {
            Issue.record("expected an overflow, got \(String(describing: report.anomaly))")
            return
        }
        let (after, reports) = try rig.stream(1)
        #expect(reports.allSatisfy { $0.anomaly == nil })
        let last = try #require(before.last)
        let kLast = try #require(IMUTestTraces.index(of: last))
        let kFirst = try #require(after.first.flatMap { IMUTestTraces.index(of: $0) })
        #expect(kFirst - kLast - 1 == report.lostSamples + reports.reduce(0) { $0 + $1.lostSamples })
        var off = 0
        for s in after {
            let k = try #require(IMUTestTraces.index(of: s))
            if abs((s.t - last.t) - Double(k - kLast) / 100) > 1e-9 { off += 1 }
        }
        #expect(off == 0)
    }

    @Test func eioBurstThrowsAndLosesNothing() throws {
        let rig = Rig()
        try rig.driver.initialize()
        let (before, _) = try rig.stream(0.3)
        rig.emulator.failNextReads(2)
        var out: [IMUSample] = []
        for _ in 0..<2 {
            rig.clock.advance(0.05)
            #expect(throws: IMUDriverError.bus(.eio)) { try rig.driver.readFIFO(into: &out) }
        }
        let (after, _) = try rig.stream(0.3)
        let all = before + after
        #expect(all.count == 70)   // the FIFO kept the samples while the bus failed
        for (a, b) in zip(all, all.dropFirst()) {
            #expect(IMUTestTraces.index(of: b) == IMUTestTraces.index(of: a)! + 1)
        }
    }

    @Test func stuckFIFOCountIsDetectedAndRecovered() throws {
        let rig = Rig()
        try rig.driver.initialize()
        let (before, _) = try rig.stream(0.5)
        rig.clock.advance(0.3)
        rig.emulator.setFIFOCountStuck(true)     // frozen at 30 frames' worth
        let (_, stuckReports) = try rig.stream(0.5)
        let anomalies = stuckReports.compactMap(\.anomaly)
        #expect(!anomalies.isEmpty)
        #expect(anomalies.allSatisfy {
            if case .implausibleCount = $0 { return true }
            if case .garbageFrames = $0 { return true }
            return false
        })
        rig.emulator.setFIFOCountStuck(false)
        let (after, reports) = try rig.stream(0.5)
        #expect(reports.allSatisfy { $0.anomaly == nil })
        #expect(after.count >= 45)
        let last = try #require(before.last)
        let kLast = try #require(IMUTestTraces.index(of: last))
        for s in after {
            let k = try #require(IMUTestTraces.index(of: s))
            #expect(abs((s.t - last.t) - Double(k - kLast) / 100) < 1e-9)
        }
    }

    @Test func brokenFrameAlignmentIsDetected() throws {
        let rig = Rig()
        try rig.driver.initialize()
        _ = try rig.stream(0.2)
        try rig.emulator.writeRegister(MPU6050Register.fifoRW, value: 0xAB)   // one stray byte
        rig.clock.advance(0.05)
        var out: [IMUSample] = []
        let report = try rig.driver.readFIFO(into: &out)
        #expect(report.anomaly == .partialFrame(count: 61))
        let (after, reports) = try rig.stream(0.3)
        #expect(reports.allSatisfy { $0.anomaly == nil })
        #expect(after.count == 30)
    }

    @Test func sleepingDeviceIsNoticed() throws {
        let rig = Rig()
        try rig.driver.initialize()
        _ = try rig.stream(0.2)
        // A brown-out reset puts the device back to sleep with default registers.
        try rig.emulator.writeRegister(MPU6050Register.pwrMgmt1, value: MPU6050Bits.deviceReset)
        rig.clock.advance(0.1)
        let (_, reports) = try rig.stream(0.2)
        #expect(reports.contains { if case .implausibleCount = $0.anomaly { return true } else { return false } })
    }

    @Test func sampleClockFollowsADriftingOscillator() throws {
        // The device's oscillator runs 1 % fast against the engine clock.
        let clock = IMUManualClock()
        let trace = IMUTestTraces.indexed(count: 20_000)
        // Hold (not interpolate) so every sample still carries its trace index.
        let emulator = MPU6050Emulator(clock: { clock.now * 1.01 }, samples: trace, resampling: .hold)
        let driver = MPU6050Driver(bus: emulator, config: MPU6050Config(), clock: clock.imuClock)
        try driver.initialize()
        var out: [IMUSample] = []
        var future = -Double.infinity
        for _ in 0..<1_200 {   // 60 s
            clock.advance(0.05)
            let report = try driver.readFIFO(into: &out)
            #expect(report.anomaly == nil)
            if let s = out.last { future = max(future, s.t - clock.now) }
        }
        // Truth: the device ticks 101 times per engine second, so sample k is k/101 s after
        // sample 0. The stamps must follow that, not the nominal 100 Hz (which would be
        // 0.6 s off after a minute).
        let k0 = try #require(IMUTestTraces.index(of: out[0]))
        var worst = 0.0
        for s in out.suffix(3_000) {
            let k = try #require(IMUTestTraces.index(of: s))
            worst = max(worst, abs((s.t - out[0].t) - Double(k - k0) / 101))
        }
        #expect(worst < 0.03, "worst timestamp error \(worst) s")
        #expect(future <= MPU6050Driver.clockSlack + 0.1 / 100)    // never (noticeably) in the future
        #expect(abs(driver.estimatedRate - 101) < 0.3, "estimated \(driver.estimatedRate)")
        let last = try #require(out.last)
        #expect(clock.now - last.t < 2 / 101 + MPU6050Driver.clockSlack)   // nor far in the past
        #expect(out.count > 6_000)
        for (a, b) in zip(out, out.dropFirst()) { #expect(b.t > a.t) }
    }
}
