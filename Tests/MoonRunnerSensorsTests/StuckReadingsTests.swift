import Testing
@testable import MoonRunnerSensors

/// How the barometer service tells a hung device from a steady pressure.
@Suite("Stuck readings")
struct StuckReadingsTests {
    @Test("the same raw words for stuckAfter seconds are a stuck device, not before")
    func stuckAfterTheLimit() {
        var watch = StuckReadings(stuckAfter: 2)
        let verdicts = [0.0, 0.5, 1.0, 2.0, 2.5].map { watch.check(pressure: 400_000, temperature: 500_000, at: $0) }
        // The first repeat (at 0.5 s) starts the clock: stuck 2 s after it.
        #expect(verdicts == [.fresh, .repeated, .repeated, .repeated, .stuck])
    }

    @Test("any change in either word is a new measurement and starts the watch over")
    func changeStartsOver() {
        var watch = StuckReadings(stuckAfter: 2)
        var verdicts = [watch.check(pressure: 1, temperature: 1, at: 0), watch.check(pressure: 1, temperature: 1, at: 1)]
        verdicts.append(watch.check(pressure: 1, temperature: 2, at: 2.9))
        verdicts.append(watch.check(pressure: 1, temperature: 2, at: 3))
        verdicts.append(watch.check(pressure: 1, temperature: 2, at: 4.9))
        verdicts.append(watch.check(pressure: 1, temperature: 2, at: 5))
        #expect(verdicts == [.fresh, .repeated, .fresh, .repeated, .repeated, .stuck])
    }
}
