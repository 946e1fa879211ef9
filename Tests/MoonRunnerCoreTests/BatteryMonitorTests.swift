import Testing
@testable import MoonRunnerCore

/// The battery monitor: one charge from a gauge's readings, the minutes left,
/// and the warnings and critical alarm a session acts on.
@Suite("Battery monitor")
struct BatteryMonitorTests {
    /// Feeds `(t, percent)` pairs; the alarms with the time of the reading that raised them.
    static func feed(_ m: inout BatteryMonitor, _ series: [(Double, Double)],
                     charging: Bool? = false) -> [(t: Double, alarm: BatteryAlarm)] {
        var out: [(t: Double, alarm: BatteryAlarm)] = []
        for (t, p) in series {
            for a in m.take(BatteryReading(t: t, percent: p, volts: 3.7, charging: charging)) { out.append((t, a)) }
        }
        return out
    }

    /// 1 % a minute from `start`, a reading every 10 s for `seconds`.
    static func draining(from start: Double, seconds: Int, t0: Double = 0) -> [(Double, Double)] {
        stride(from: 0, through: seconds, by: 10).map { (t0 + Double($0), start - Double($0) / 60) }
    }

    @Test("a draining cell: warned once at 20 %, once at 10 %, critical 30 s after reaching 5 %, once")
    func drainingSeries() throws {
        var m = BatteryMonitor()
        let series = Self.draining(from: 30, seconds: 1800)
        let alarms = Self.feed(&m, series)
        let lows = alarms.compactMap { a -> (Double, Double)? in
            if case let .low(level, _) = a.alarm { (a.t, level) } else { nil }
        }
        #expect(lows.map(\.1) == [20, 10])
        #expect(lows.map(\.0) == [600, 1200], "told at the first reading at or under each level")
        let criticals = alarms.filter { $0.alarm == .critical }.map(\.t)
        let reached = try #require(series.first { $0.1 <= 5 }?.0)
        #expect(criticals == [reached + 30])
        #expect(m.isCritical)
        #expect(m.jumps == 0)
    }

    @Test("a charge hovering around 20 % is told once; it is told again after rising 5 % above it")
    func hovering() {
        var m = BatteryMonitor()
        let hover = [21.0, 20.0, 19.8, 20.4, 19.6, 20.9, 19.9, 20.2, 19.7, 21.5, 19.5]
        let first = Self.feed(&m, hover.enumerated().map { (k, p) -> (Double, Double) in (Double(k) * 10, p) })
        #expect(first.count == 1)
        #expect(first.first?.t == 10 && first.first?.alarm == .low(level: 20, percent: 20))
        // Up to 26 % (a rest lets a cell's voltage, hence an estimate, recover) and down again.
        let up: [(Double, Double)] = (0...13).map { (k: Int) -> (Double, Double) in
            (200 + Double(k) * 30, 19.5 + Double(k) * 0.5)
        }
        #expect(Self.feed(&m, up).isEmpty)
        let down: [(Double, Double)] = (1...14).map { (k: Int) -> (Double, Double) in
            (590 + Double(k) * 30, 26 - Double(k) * 0.5)
        }
        let again = Self.feed(&m, down)
        #expect(again.count == 1)
        #expect(again.first?.alarm == .low(level: 20, percent: 20))
    }

    @Test("critical only once the level has held for `confirm` seconds; a lift above it starts over")
    func criticalConfirm() {
        var m = BatteryMonitor()
        #expect(Self.feed(&m, [(0, 4.9), (10, 4.9), (20, 4.8), (29, 4.8)]).allSatisfy { $0.alarm != .critical })
        #expect(Self.feed(&m, [(30, 4.8)]).map(\.alarm) == [.critical])
        #expect(Self.feed(&m, [(40, 4.7), (80, 4.7)]).isEmpty, "raised once")

        var sag = BatteryMonitor()
        var alarms = Self.feed(&sag, [(0, 4.9), (10, 4.9), (20, 4.9), (25, 5.5), (40, 4.9), (60, 4.9)])
        #expect(!alarms.contains { $0.alarm == .critical })
        alarms = Self.feed(&sag, [(70, 4.9)])
        #expect(alarms.map(\.alarm) == [.critical])
    }

    @Test("a critical level in volts holds for `confirm` seconds of the cell's voltage")
    func criticalVolts() {
        var policy = BatteryPolicy()
        policy.critical = .volts(3.4)
        var m = BatteryMonitor(policy: policy)
        var raised: [Double] = []
        for (t, v) in [(0.0, 3.45), (10, 3.39), (20, 3.38), (30, 3.38), (40, 3.37)] {
            if m.take(BatteryReading(t: t, volts: v, current: .nan)).contains(.critical) { raised.append(t) }
        }
        #expect(raised == [40])
        #expect(policy.criticalPercent > 0 && policy.criticalPercent < 5)
        #expect(BatteryPolicy().criticalPercent == 5)
        #expect(policy.critical.description == "3.40 V" && BatteryPolicy().critical.description == "5 %")
    }

    @Test("a single jumped reading is held back and counted; the charge goes on from before it")
    func singleJump() throws {
        var m = BatteryMonitor()
        _ = Self.feed(&m, Self.draining(from: 50, seconds: 300))
        let before = try #require(m.state)
        let jumped = m.take(BatteryReading(t: 310, percent: 4, volts: 3.7, charging: false))
        #expect(jumped.isEmpty, "neither a warning nor a critical from a glitch")
        #expect(m.jumps == 1)
        // Field by field: the current is NaN here (no current measured), and NaN is equal to nothing.
        #expect(m.state?.time == before.time && m.state?.percent == before.percent
                && m.state?.minutesLeft == before.minutesLeft, "the held-back reading changes nothing")
        let back = Self.feed(&m, Self.draining(from: 50 - 320.0 / 60, seconds: 300, t0: 320))
        #expect(back.isEmpty)
        #expect(m.jumps == 1)
        #expect(abs((m.state?.percent ?? 0) - (50 - 620.0 / 60)) < 1e-9)
    }

    @Test("two readings that agree on a new level are the cell's: accepted, warned, counted once")
    func confirmedJump() {
        var m = BatteryMonitor()
        _ = Self.feed(&m, [(0, 50), (10, 50)])
        #expect(Self.feed(&m, [(20, 12)]).isEmpty)
        let alarms = Self.feed(&m, [(30, 12.5)])
        #expect(alarms.map(\.alarm) == [.low(level: 20, percent: 12.5)])
        #expect(m.jumps == 1, "the held-back reading, not the one that confirmed it")
        #expect(m.state?.percent == 12.5)
    }

    @Test("minutes left from a steady discharge; none while charging or before the rate is known")
    func minutesLeft() throws {
        var m = BatteryMonitor()
        _ = m.take(BatteryReading(t: 0, percent: 80, volts: 3.9, charging: false))
        #expect(m.state?.minutesLeft == nil, "one reading: no rate yet")
        _ = Self.feed(&m, Self.draining(from: 80, seconds: 600))
        let minutes = try #require(m.state?.minutesLeft)
        #expect(abs(minutes - 65) < 1e-6, "70 % at 1 % a minute is 65 min above the 5 % critical level")
        _ = m.take(BatteryReading(t: 610, percent: 70, volts: 4.0, charging: true))
        #expect(m.state?.minutesLeft == nil)
        #expect(m.state?.charging == true)
    }

    @Test("a charger silences the alarms and re-arms the warnings")
    func chargingSilences() {
        var m = BatteryMonitor()
        let plugged: [(Double, Double)] = (0...10).map { (k: Int) -> (Double, Double) in (Double(k) * 10, 4.5) }
        #expect(Self.feed(&m, plugged, charging: true).isEmpty)
        #expect(!m.isCritical)
        let unplugged = Self.feed(&m, [(110, 4.5)])
        #expect(unplugged.map(\.alarm) == [.low(level: 10, percent: 4.5)], "both levels at once: the lower told")
    }

    @Test("readings that say nothing are ignored; a percentage out of range falls back on the voltage")
    func implausible() {
        var m = BatteryMonitor()
        #expect(m.take(BatteryReading(t: .nan, percent: 50)).isEmpty)
        #expect(m.take(BatteryReading(t: 0, volts: 1.2)).isEmpty)
        #expect(m.state == nil)
        _ = m.take(BatteryReading(t: 1, percent: 140, volts: 3.78))
        #expect(abs((m.state?.percent ?? 0) - 50) < 1e-9, "3.78 V is the curve's 50 %")
    }
}
