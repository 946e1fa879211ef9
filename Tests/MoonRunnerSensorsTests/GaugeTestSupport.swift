import MoonRunnerCore
import Synchronization
@testable import MoonRunnerSensors

/// A clock for the gauge tests that moves only when told.
final class GaugeClock: Sendable {
    private let t = Mutex(1_000.0)
    var now: Double { t.withLock { $0 } }
    func advance(_ s: Double) { t.withLock { $0 += s } }
    var closure: @Sendable () -> Double { { self.now } }
}

/// A 16-bit register of an emulated gauge read or written around its driver.
func gaugeWord(_ bus: any I2CBus, _ address: UInt8, _ register: UInt8) throws(GaugeError) -> UInt16 {
    let r = WordRegisters(bus: bus, address: address)
    try r.select()
    return try r.read(register)
}

func setGaugeWord(_ bus: any I2CBus, _ address: UInt8, _ register: UInt8, _ value: UInt16) throws(GaugeError) {
    let r = WordRegisters(bus: bus, address: address)
    try r.select()
    try r.write(register, value)
}

/// Whether a gauge's raw words stopped changing (the barometers' watch over its 64 bits).
extension StuckReadings {
    mutating func check(raw: UInt64, at t: Double) -> Verdict {
        check(pressure: UInt32(truncatingIfNeeded: raw >> 32), temperature: UInt32(truncatingIfNeeded: raw), at: t)
    }
}
