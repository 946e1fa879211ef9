import Foundation
import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

@Suite("Session engine: heart rate")
struct HeartRateEngineTests {
    static func engine() -> SessionEngine {
        var config = EngineConfig()
        config.heartRate.maxBPM = 200   // zones from 120, 140, 160, 180
        return SessionEngine(config: config)
    }

    static func hr(_ t: Double, _ bpm: Int, contact: HeartRateNotification.SensorContact = .detected,
                   rr: [Double] = []) -> HeartRateSample {
        HeartRateSample(t: t, bpm: bpm, contact: contact, rrMilliseconds: rr)
    }

    @Test("the heart rate is current for 5 s after a reading; no contact or a value of 0 makes it missing at once")
    func current() {
        var e = Self.engine()
        e.ingest(Self.hr(10, 150)) { _ in }
        #expect(e.heartRate.current(at: e.now) == 150)
        e.advance(to: 14.9) { _ in }
        #expect(e.heartRate.current(at: e.now) == 150)
        e.advance(to: 15) { _ in }
        #expect(e.heartRate.current(at: e.now) == nil, "5 s without a notification is missing, never the last value")
        e.ingest(Self.hr(16, 151)) { _ in }
        e.ingest(Self.hr(17, 149, contact: .notDetected)) { _ in }
        #expect(e.heartRate.current(at: e.now) == nil)
        e.ingest(Self.hr(18, 152)) { _ in }
        e.ingest(Self.hr(19, 0)) { _ in }
        #expect(e.heartRate.current(at: e.now) == nil)
        #expect(e.heartRate.counters.samples == 3 && e.heartRate.counters.missing == 2)
    }

    @Test("implausible heart rates (above 250, below 25) and RR intervals (outside 200–2500 ms) are refused and counted")
    func implausible() {
        var e = Self.engine()
        var out: [EngineOutput] = []
        try? e.start(activity: .run, at: 0) { out.append($0) }
        e.ingest(Self.hr(1, 251, rr: [150, 800, 3000])) { out.append($0) }
        e.ingest(Self.hr(2, 12)) { out.append($0) }
        #expect(e.heartRate.current(at: e.now) == nil)
        #expect(e.heartRate.counters.rejected == 2)
        #expect(e.heartRate.counters.rrRejected == 2 && e.heartRate.counters.rrIntervals == 1)
        #expect(out.contains(.rrIntervals(at: 1, [800])))
        #expect(!out.contains { if case .heartRate = $0 { true } else { false } })
        // Out of order is refused too.
        e.ingest(Self.hr(1.5, 140)) { out.append($0) }
        #expect(e.heartRate.counters.rejected == 3)
    }

    @Test("a reading stamped 1 s before the one before it is dropped and counted as out of order; the readings after it are taken")
    func outOfOrder() {
        var e = Self.engine()
        var taken: [Double] = []
        try? e.start(activity: .run, at: 0) { _ in }
        for (t, bpm) in [(1.0, 140), (2.0, 141), (1.0, 139), (3.0, 142)] {
            e.ingest(Self.hr(t, bpm)) { if case let .heartRate(r) = $0 { taken.append(r.bpm) } }
        }
        #expect(taken == [140, 141, 142])
        #expect(e.heartRate.counters.outOfOrder == 1 && e.heartRate.counters.rejected == 1)
        #expect(e.heartRate.counters.samples == 3)
    }

    @Test("while a session is open every reading goes out, a missing one as NaN (a gap, not a flat line)")
    func readingsOut() {
        var e = Self.engine()
        var out: [EngineOutput] = []
        e.ingest(Self.hr(0, 100)) { out.append($0) }
        #expect(out.isEmpty, "nothing is recorded while idle")
        try? e.start(activity: .run, at: 1) { out.append($0) }
        e.ingest(Self.hr(2, 140)) { out.append($0) }
        e.ingest(Self.hr(3, 0)) { out.append($0) }
        let readings = out.compactMap { if case let .heartRate(r) = $0 { r } else { nil } }
        #expect(readings.count == 2)
        #expect(readings[0] == HeartRatePoint(time: 2, bpm: 140))
        #expect(readings[1].time == 3 && readings[1].bpm.isNaN)
    }

    @Test("a zone crossing while recording is an hr_zone event with the zone as detail; none while idle or paused")
    func zoneEvents() throws {
        var e = Self.engine()
        var out: [EngineOutput] = []
        for t in 0..<5 { e.ingest(Self.hr(Double(t), 130)) { out.append($0) } }
        try e.start(activity: .run, at: 5) { out.append($0) }
        for t in 5..<15 { e.ingest(Self.hr(Double(t), 150)) { out.append($0) } }
        try e.pause(at: 15) { out.append($0) }
        for t in 15..<25 { e.ingest(Self.hr(Double(t), 170)) { out.append($0) } }
        let zones = out.compactMap { if case let .event(ev) = $0, ev.kind == .hrZone { ev } else { nil } }
        #expect(zones.map(\.detail) == ["3"])
        #expect(zones.first?.time == 8, "after the 3 s dwell from 5 s")
        #expect(zones.first?.cause == "heart_rate" && zones.first?.kind.isTransition == false)
        #expect(e.heartRate.zone(at: e.now) == 4, "the zone follows while paused, silently")
    }

    @Test("track points carry the heart rate current when they are placed, NaN when it is missing")
    func pointsCarryHeartRate() throws {
        var e = Self.engine()
        var points: [TrackPoint] = []
        try e.start(activity: .run, at: 0) { _ in }
        for i in 0..<40 {
            let t = Double(i)
            if i < 20 { e.ingest(Self.hr(t, 140 + i)) { _ in } }
            e.ingest(Synth.fix(t, north: 3 * t, speed: 3), at: t) { if case let .point(p) = $0 { points.append(p) } }
        }
        let early = points.filter { $0.time < 20 }, late = points.filter { $0.time >= 25 }
        #expect(!early.isEmpty && early.allSatisfy { $0.heartRate == 140 + ($0.time) })
        #expect(!late.isEmpty && late.allSatisfy { $0.heartRate.isNaN })
    }

    @Test("analysis of heart rate alone gives its figures over the session, the RR intervals and the method")
    func analysis() {
        var config = EngineConfig()
        config.heartRate.maxBPM = 200
        var a = TraceAnalysis(config: config)
        for i in 0...600 { a.feed(HeartRateSample(t: 1000 + Double(i), bpm: i < 300 ? 130 : 150, rrMilliseconds: [400])) }
        let s = a.finish(at: 1600)
        #expect(abs((s.hrAverage ?? 0) - 140) < 0.01)
        #expect(s.hrMax == 150)
        #expect(s.hrZoneSeconds == [0, 300, 300, 0, 0])
        #expect(s.caloriesMethod == .heartRate && s.caloriesKcal > 0)
        #expect(a.rrIntervals.count == 601)
    }

    @Test("the live figures (STATUS) equal the stored session's at its end: 40 min at 4 Hz with pauses, a gap and missing readings, settled in batches on the way")
    func liveEqualsStored() throws {
        var e = Self.engine()
        var readings: [HeartRatePoint] = []
        let keep: (EngineOutput) -> Void = { if case let .heartRate(r) = $0 { readings.append(r) } }
        try e.start(activity: .run, at: 0, emit: keep)
        var random = GPSTestRandom(seed: 22)
        var t = 0.25
        while t < 2400 {
            // A strap gap of 40 s at 10 min, no contact for 3 s at 20 min.
            if !(600..<640).contains(t) {
                let bpm = (t >= 1200 && t < 1203) ? 0 : 120 + Int(40 * sin(t / 300)) + Int(random.next() % 5)
                e.ingest(Self.hr(t, bpm)) { keep($0) }
            }
            if t == 900 { try e.pause(at: t, emit: keep) }
            if t == 1000 { try e.resume(at: t, emit: keep) }
            if t == 1500 {
                // The live figure halfway agrees with the stored rule over what was stored so far.
                let live = try #require(e.heartRateSummary)
                let stored = HeartRateSummary(readings: readings, paused: PausedTime(e.pauses), from: 0, to: t,
                                              profile: e.config.heartRate)
                #expect(abs(live.heartRateKcal - stored.heartRateKcal) < 1e-6 && live.maxBPM == stored.maxBPM)
            }
            t += 0.25
        }
        try e.stop(at: 2400, emit: keep)
        let live = try #require(e.heartRateSummary)
        let stored = HeartRateSummary(readings: readings, paused: PausedTime(e.pauses), from: 0, to: 2400,
                                      profile: e.config.heartRate)
        #expect(readings.count > 9000, "\(readings.count) readings: many batches of 256 were settled")
        // Sums taken in batches: equal to rounding.
        #expect(abs(live.heartRateKcal - stored.heartRateKcal) < 1e-6, "\(live.heartRateKcal) vs \(stored.heartRateKcal) kcal")
        #expect(abs((live.averageBPM ?? 0) - (stored.averageBPM ?? 0)) < 1e-9 && live.maxBPM == stored.maxBPM)
        #expect(abs(live.coveredSeconds - stored.coveredSeconds) < 1e-6 && live.movingSeconds == stored.movingSeconds)
        #expect(zip(live.zoneSeconds, stored.zoneSeconds).allSatisfy { abs($0 - $1) < 1e-6 })
        #expect(live.calorieMethod == .heartRate, "covered \(live.coverage): the 40 s gap and 3 s without contact are under 10 %")
    }

    @Test("live calories follow heart rate only once it covers 90 % of the moving time so far")
    func liveMethod() throws {
        var e = Self.engine()
        try e.start(activity: .run, at: 0) { _ in }
        e.advance(to: 100) { _ in }
        for i in 0..<20 { e.ingest(Self.hr(100 + Double(i), 150)) { _ in } }
        #expect(e.heartRateSummary?.calorieMethod == .acsm, "20 s of 120 s")
        var e2 = Self.engine()
        try e2.start(activity: .run, at: 0) { _ in }
        for i in 1...120 { e2.ingest(Self.hr(Double(i), 150)) { _ in } }
        #expect(e2.heartRateSummary?.calorieMethod == .heartRate)
        #expect((e2.heartRateSummary?.heartRateKcal ?? 0) > 0)
    }
}
