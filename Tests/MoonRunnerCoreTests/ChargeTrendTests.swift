import Testing
@testable import MoonRunnerCore

/// How fast the charge falls (`DischargeTrend`), and the charge of a cell
/// whose gauge gives only a voltage and a current (`ChargeEstimate`).
@Suite("Charge trend and estimate")
struct ChargeTrendTests {
    /// 1 % a minute from `start` %, a point every 10 s from `from` to `to` seconds.
    static func draining(_ trend: inout DischargeTrend, start: Double = 80, from: Int = 0, to: Int = 600,
                         perMinute: Double = 1) {
        for t in stride(from: from, through: to, by: 10) {
            trend.add(t: Double(t), percent: start - perMinute * Double(t - from) / 60)
        }
    }

    @Test("a steady 1 % a minute: 70 % is 65 minutes from a 5 % floor")
    func steadyDischarge() throws {
        var trend = DischargeTrend(window: 600)
        Self.draining(&trend)
        let slope = try #require(trend.slope(at: 600))
        #expect(abs(slope - -1.0 / 60) < 1e-9)
        let minutes = try #require(trend.minutesLeft(from: 70, to: 5, at: 600))
        #expect(abs(minutes - 65) < 1e-6)
        #expect(trend.minutesLeft(from: 4, to: 5, at: 600) == 0, "below the floor already: no time left")
    }

    @Test("nothing to tell with under two minutes of points, while charging, resting or unknown")
    func unknownOrNotDraining() {
        var short = DischargeTrend(window: 600)
        Self.draining(&short, to: 110)
        #expect(short.minutesLeft(from: 78, to: 5, at: 110) == nil)
        short.add(t: 120, percent: 78)
        #expect(short.minutesLeft(from: 78, to: 5, at: 120) != nil)

        var charging = DischargeTrend(window: 600)
        Self.draining(&charging, start: 40, perMinute: -0.5)
        #expect(charging.minutesLeft(from: 45, to: 5, at: 600) == nil)

        var resting = DischargeTrend(window: 600)
        Self.draining(&resting, perMinute: 0)
        #expect(resting.minutesLeft(from: 80, to: 5, at: 600) == nil)

        var trend = DischargeTrend(window: 600)
        Self.draining(&trend)
        #expect(trend.minutesLeft(from: .nan, to: 5, at: 600) == nil)
        trend.reset()
        #expect(trend.slope(at: 600) == nil)
    }

    @Test("the slope is the last window's: a rate that doubles is seen once the window has passed")
    func windowFollowsTheRate() throws {
        var trend = DischargeTrend(window: 600)
        Self.draining(&trend, to: 600)
        Self.draining(&trend, start: 70, from: 600, to: 1200, perMinute: 2)
        let slope = try #require(trend.slope(at: 1200))
        #expect(abs(slope - -2.0 / 60) < 0.002 / 60)
    }

    @Test("points closer than window/64 are skipped; a very slow drain is capped at two days")
    func spacingAndCap() throws {
        var trend = DischargeTrend(window: 600)
        for t in 0..<200 { trend.add(t: Double(t), percent: 50 - Double(t) * 1e-5) }
        let minutes = try #require(trend.minutesLeft(from: 50, to: 5, at: 199))
        #expect(minutes == 2 * 24 * 60)
    }

    @Test("voltage alone: the first reading is the curve's, a step moves it by 1 - e^(-dt/120)")
    func voltageOnly() {
        var e = ChargeEstimate(capacityAh: 2)
        let first = e.update(BatteryReading(t: 0, volts: 3.78))
        #expect(abs(first - 50) < 1e-9)
        let next = e.update(BatteryReading(t: 120, volts: 3.94))   // the curve's 80 %
        let expected = 50 + 30 * (1 - 1 / 2.718281828459045)
        #expect(abs(next - expected) < 1e-6)
        #expect(e.update(BatteryReading(t: 121, percent: 10)).isNaN, "no voltage: nothing to estimate from")
    }

    @Test("with the current: the curve's mean over the first minute, then 0.4 A for an hour takes 20 % of 2 Ah")
    func coulombCounting() {
        var e = ChargeEstimate(capacityAh: 2)
        var t = 0.0
        var last = Double.nan
        while t <= 60 {
            // Under a load spike the voltage sags: the mean of the minute is still 50 %.
            let volts = Int(t) % 20 == 0 ? 3.73 : 3.78
            let current = Int(t) % 20 == 0 ? 0.9 : 0.4
            last = e.update(BatteryReading(t: t, volts: volts, current: current))
            t += 1
        }
        #expect(abs(last - 50) < 1e-6, "the start is placed at \(last) %")
        while t <= 3660 {
            // The voltage says 80 %; the count does not listen to it any more.
            last = e.update(BatteryReading(t: t, volts: 3.94, current: 0.4))
            t += 1
        }
        #expect(abs(last - 30) < 0.01, "\(last) % after 0.4 Ah out of 2 Ah from 50 %")
        let full = e.update(BatteryReading(t: t, volts: 4.18, current: -0.01, charging: true))
        #expect(full == 100, "a charger done at 4.18 V re-anchors the count at 100 %")
        let after = e.update(BatteryReading(t: t + 36, volts: 4.1, current: 1.0))
        // The trapezoid from -0.01 A to 1.0 A over 36 s: 17.82 As, 0.2475 % of 2 Ah.
        #expect(abs(after - 99.7525) < 1e-9)
    }
}
