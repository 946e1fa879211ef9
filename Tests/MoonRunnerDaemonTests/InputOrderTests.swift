import Foundation
import MoonRunnerCore
@testable import MoonRunnerSensors
import Testing
@testable import MoonRunnerDaemon

/// The engine sees fixes and the sensors' samples in the order of their
/// times, as `moonrunner analyze` feeds them, however late the bursts come.
@Suite("Input order")
struct InputOrderTests {
    /// What was passed on, as (kind, time) pairs.
    private struct Fed {
        var items: [String] = []
        mutating func take(_ input: OrderedInput) {
            switch input {
            case let .imu(s): items.append("i\(label(s.t))")
            case let .baro(s): items.append("b\(label(s.t))")
            case let .fix(_, t): items.append("f\(label(t))")
            }
        }
        private func label(_ t: Double) -> String { String(format: "%.2f", t) }
    }

    private func imu(_ times: [Double]) -> IMUBatch {
        IMUBatch(samples: times.map { IMUSample(t: $0, ax: 0, ay: 0, az: 1) }, health: .ok)
    }

    private func fix(_ t: Double) -> GPSFix {
        GPSFix(time: 1000 + t, mode: 3, latitude: 51, longitude: 0)
    }

    @Test("a fix waits for the IMU's samples of its instant, then comes between the samples before and after it")
    func waitsForTheIMU() {
        var order = InputOrder()
        var fed = Fed()
        order.release(imu: [imu([9.8, 9.9])], baro: [], flush: false) { fed.take($0) }
        order.add(fix: fix(10), at: 10.0)
        order.release(imu: [], baro: [], flush: false) { fed.take($0) }
        // The IMU has reached 9.9 only: the fix waits.
        #expect(fed.items == ["i9.80", "i9.90"])
        #expect(order.waitingSince == 10.0)
        order.release(imu: [imu([10.0, 10.1])], baro: [], flush: false) { fed.take($0) }
        // A fix goes before the sample of its own instant (as analyze has it).
        #expect(fed.items == ["i9.80", "i9.90", "f10.00", "i10.00", "i10.10"])
        #expect(order.waitingSince == nil)
    }

    @Test("only the newest fix waits; a flush and a quiet IMU let every fix go")
    func olderFixesAndQuiet() {
        var order = InputOrder()
        var fed = Fed()
        order.release(imu: [imu([9.5])], baro: [], flush: false) { fed.take($0) }
        order.add(fix: fix(10), at: 10.0)
        order.add(fix: fix(11), at: 11.0)
        order.release(imu: [], baro: [], flush: false) { fed.take($0) }
        // The older fix has waited a whole interval: it goes; the newest waits.
        #expect(fed.items == ["i9.50", "f10.00"])
        order.release(imu: [], baro: [], flush: true) { fed.take($0) }
        #expect(fed.items.last == "f11.00")
        // The IMU is quiet (parked, lost, none) more than `quietAfter` before the fix: no wait.
        order.add(fix: fix(13), at: 9.5 + InputOrder.quietAfter + 0.5)
        order.release(imu: [], baro: [], flush: false) { fed.take($0) }
        #expect(order.waitingSince == nil)
        #expect(fed.items.count == 4)
    }

    @Test("barometer readings keep their place between the fixes and the samples")
    func barometerInOrder() {
        var order = InputOrder()
        var fed = Fed()
        order.add(fix: fix(10), at: 10.0)
        let readings = BaroBatch(samples: [BaroSample(t: 9.95, pressure: 1000), BaroSample(t: 10.05, pressure: 1000)],
                                 health: .ok)
        order.release(imu: [imu([9.9, 10.0, 10.1])], baro: [readings], flush: false) { fed.take($0) }
        #expect(fed.items == ["i9.90", "b9.95", "f10.00", "i10.00", "b10.05", "i10.10"])
    }

    @Test("without an IMU fixes and readings go at once")
    func noIMU() {
        var order = InputOrder()
        var fed = Fed()
        order.add(fix: fix(10), at: 10.0)
        order.release(imu: [], baro: [BaroBatch(samples: [BaroSample(t: 10.5, pressure: 990)], health: .ok)],
                      flush: false) { fed.take($0) }
        #expect(fed.items == ["f10.00", "b10.50"])
    }
}
