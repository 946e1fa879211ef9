import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerSensors

/// The FIFO read in bursts (about every half second at 100 Hz) keeps every
/// sample and its time: checked against the emulator's own sample clock,
/// which runs 0.5 % fast (an oscillator off its nominal rate).
@Suite("IMU burst reads")
struct IMUBurstReadTests {
    static let start = 1_000.0
    static let drift = 1.005

    @Test("each read takes about half a second of samples; none lost, none off the device's clock")
    func burstsKeepTheSampleClock() async throws {
        let clock = IMUManualClock(start: Self.start, realPause: 0.0002)
        let fast = Self.drift
        let deviceClock: @Sendable () -> Double = { Self.start + (clock.now - Self.start) * fast }
        let emulator = MPU6050Emulator(clock: deviceClock, samples: IMUTestTraces.indexed(count: 8_000))
        let config = IMUServiceConfig()
        let service = IMUService(bus: { () throws(I2CError) -> any I2CBus in emulator }, config: config,
                                 clock: clock.imuClock, source: "test", emulator: emulator)
        let run = await IMUServiceTests.run(service, clock, until: Self.start + 60)

        // The interval the service chose: 60 % of the 1024-byte FIFO's 85 frames at 100 Hz.
        let interval = config.interval(capacity: 1024, frameSize: 12, period: 0.01)
        #expect(abs(interval - 0.51) < 1e-9)
        let sizes = run.batches.map(\.samples.count).filter { $0 > 0 }
        let typical = sizes.sorted()[sizes.count / 2]
        #expect(typical >= 45 && typical <= 60, "median batch \(typical) samples")
        #expect(run.status.counters.fifoResets == 0 && run.status.counters.overflows == 0)
        #expect(run.status.counters.lostSamples == 0)

        // No gap anywhere, FIFO boundaries included: trace index k follows k - 1.
        let s = run.samples
        let indices = s.compactMap { IMUTestTraces.index(of: $0) }
        #expect(indices.count == s.count)
        let gaps = zip(indices, indices.dropFirst()).filter { $1 != $0 + 1 }.count
        #expect(gaps == 0, "\(gaps) gaps")

        // Sample k was taken at device time start + k/100, engine time start + (k/100)/1.005:
        // the stamps follow that line, its slope (no drift) and within a sample of it (no jumps).
        let settled = s.filter { $0.t >= Self.start + 5 }
        let first = try #require(settled.first), last = try #require(settled.last)
        let k0 = try #require(IMUTestTraces.index(of: first)), k1 = try #require(IMUTestTraces.index(of: last))
        let span: Double = last.t - first.t
        let slope: Double = span / Double(k1 - k0)
        let want: Double = 0.01 / Self.drift
        #expect(abs(slope / want - 1) < 2e-4, "period \(slope) s, the device's \(want) s")
        var worst = 0.0
        for x in settled {
            guard let k = IMUTestTraces.index(of: x) else { continue }
            let expected: Double = first.t + Double(k - k0) * want
            worst = max(worst, abs(x.t - expected))
        }
        #expect(worst < 0.01, "a stamp \(worst) s off the device's clock")
    }
}
