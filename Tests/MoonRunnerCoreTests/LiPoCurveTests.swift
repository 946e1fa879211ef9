import Testing
@testable import MoonRunnerCore

/// The one-cell LiPo curve: the charge from a voltage under load, and back.
@Suite("LiPo curve")
struct LiPoCurveTests {
    @Test("the charge never falls as the voltage rises, and the voltage rises with the charge")
    func monotonic() {
        var last = -1.0
        for mv in stride(from: 2900, through: 4300, by: 2) {
            let p = LiPoCurve.percent(volts: Double(mv) / 1000, capacityAh: 2)
            #expect(p >= last, "\(mv) mV reads \(p) %, below \(last) % a step lower")
            last = p
        }
        var lastVolts = 0.0
        for percent in 0...100 {
            let v = LiPoCurve.volts(atPercent: Double(percent))
            #expect(v > lastVolts, "\(percent) % at \(v) V")
            lastVolts = v
        }
        let table = LiPoCurve.points
        for i in 1..<table.count {
            #expect(table[i].percent < table[i - 1].percent && table[i].volts < table[i - 1].volts)
        }
    }

    @Test("endpoints: 4.15 V and above is full, 3.30 V and below empty; the inverse clamps")
    func endpoints() {
        #expect(LiPoCurve.percent(volts: 4.15, capacityAh: 2) == 100)
        #expect(LiPoCurve.percent(volts: 4.35, capacityAh: 2) == 100)
        #expect(LiPoCurve.percent(volts: 3.30, capacityAh: 2) == 0)
        #expect(LiPoCurve.percent(volts: 2.8, capacityAh: 2) == 0)
        #expect(LiPoCurve.volts(atPercent: 100) == 4.15)
        #expect(LiPoCurve.volts(atPercent: 0) == 3.30)
        #expect(LiPoCurve.volts(atPercent: 130) == 4.15)
        #expect(LiPoCurve.volts(atPercent: -10) == 3.30)
        #expect(LiPoCurve.percent(volts: .nan, capacityAh: 2).isNaN)
    }

    @Test("the documented plateau: 3.78 V is 50 %, 3.80 V halfway to 60 %, 3.62 V is 10 %")
    func midPoints() {
        #expect(abs(LiPoCurve.percent(volts: 3.78, capacityAh: 2) - 50) < 1e-9)
        #expect(abs(LiPoCurve.percent(volts: 3.80, capacityAh: 2) - 55) < 1e-9)
        #expect(abs(LiPoCurve.percent(volts: 3.62, capacityAh: 2) - 10) < 1e-9)
        #expect(abs(LiPoCurve.volts(atPercent: 55) - 3.80) < 1e-9)
        #expect(abs(LiPoCurve.volts(atPercent: 2.5) - 3.41) < 1e-9)
    }

    @Test("a heavier load sags the voltage by 0.1 Ω: 3.68 V under 1.4 A from 2 Ah is 3.78 V at 0.2 C")
    func loadCorrection() {
        // 0.2 C of 2 Ah is 0.4 A: the table itself, whether given or implied.
        #expect(LiPoCurve.percent(volts: 3.78, current: 0.4, capacityAh: 2)
                == LiPoCurve.percent(volts: 3.78, capacityAh: 2))
        #expect(abs(LiPoCurve.percent(volts: 3.68, current: 1.4, capacityAh: 2) - 50) < 1e-9)
        #expect(LiPoCurve.percent(volts: 3.78, current: 0, capacityAh: 2) < 50, "at rest the same voltage is less charge")
    }

    @Test("the voltage at a charge reads back as that charge")
    func roundTrip() {
        for percent in stride(from: 0.0, through: 100, by: 2.5) {
            let back = LiPoCurve.percent(volts: LiPoCurve.volts(atPercent: percent), capacityAh: 2)
            #expect(abs(back - percent) < 1e-6, "\(percent) % reads back as \(back) %")
        }
    }
}
