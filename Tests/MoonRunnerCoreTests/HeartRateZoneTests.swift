import Foundation
import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

@Suite("Heart-rate zones, training load and calories")
struct HeartRateZoneTests {
    @Test("Tanaka's maximum is 208 − 0.7 × age unless one is given; %max zones start at 60/70/80/90 % of it")
    func percentOfMax() {
        var p = HeartRateProfile()
        p.age = 40
        #expect(p.maximum == 180)
        #expect(p.zoneFloors == [108, 126, 144, 162])
        #expect(p.zone(of: 100) == 1 && p.zone(of: 126) == 3 && p.zone(of: 170) == 5)
        p.maxBPM = 200
        #expect(p.zoneFloors == [120, 140, 160, 180])
    }

    @Test("Karvonen (%reserve): resting + (max − resting) × percent")
    func reserve() {
        var p = HeartRateProfile()
        p.zoneModel = .reserve
        p.maxBPM = 190
        p.restingBPM = 50
        #expect(p.zoneFloors == [134, 148, 162, 176])
    }

    @Test("explicit bounds are taken as bpm")
    func explicit() {
        var p = HeartRateProfile()
        p.zoneModel = .bpm
        p.zoneBounds = [120, 140, 155, 170]
        #expect(p.zoneFloors == [120, 140, 155, 170])
        #expect(p.zone(of: 154.9) == 3 && p.zone(of: 155) == 4)
    }

    @Test("Banister TRIMP per minute: 0.64·x·e^(1.92x) for men, 0.86·x·e^(1.67x) for women, x the reserve fraction")
    func trimp() {
        var p = HeartRateProfile()
        p.maxBPM = 200
        p.restingBPM = 60
        p.sex = .male
        // x = (144 − 60) / 140 = 0.6
        #expect(abs(p.trimpPerMinute(bpm: 144) - 0.6 * 0.64 * exp(1.92 * 0.6)) < 1e-12)
        p.sex = .female
        #expect(abs(p.trimpPerMinute(bpm: 144) - 0.6 * 0.86 * exp(1.67 * 0.6)) < 1e-12)
        #expect(p.trimpPerMinute(bpm: 50) == 0)
    }

    @Test("Keytel 2005: a 35-year-old man of 70 kg at 150 bpm spends 14.5 kcal/min; a woman 9.7; never below 0")
    func keytel() {
        var p = HeartRateProfile()
        p.age = 35
        p.bodyMass = 70
        p.sex = .male
        // (−55.0969 + 0.6309·150 + 0.1988·70 + 0.2017·35) / 4.184
        #expect(abs(p.kcalPerMinute(bpm: 150) - 60.5136 / 4.184) < 1e-3)
        p.sex = .female
        #expect(abs(p.kcalPerMinute(bpm: 150) - 40.4268 / 4.184) < 1e-3)
        #expect(p.kcalPerMinute(bpm: 40) == 0)
    }

    @Test("a heart rate that hovers at a zone boundary with ±2 bpm of jitter says nothing",
          arguments: [1, 2, 3])
    func noChatter(seed: UInt64) {
        var tracker = HeartRateZoneTracker(floors: [120, 140, 160, 180])
        var random = GPSTestRandom(seed: seed)
        var events: [Int] = []
        _ = tracker.update(bpm: 139, at: 0)
        for i in 1..<1200 {
            // 4 Hz for five minutes at the zone 3 floor, ±2 bpm, rounded as a strap rounds.
            let bpm = (140 + Double.random(in: -2...2, using: &random)).rounded()
            if let z = tracker.update(bpm: bpm, at: Double(i) / 4) { events.append(z) }
        }
        #expect(events.isEmpty, "\(events)")
    }

    @Test("a heart rate that rises through two boundaries and falls back, with ±2 bpm of jitter, gives one event per crossing",
          arguments: [1, 2, 3, 4, 5])
    func onePerCrossing(seed: UInt64) {
        var tracker = HeartRateZoneTracker(floors: [120, 140, 160, 180])
        var random = GPSTestRandom(seed: seed)
        var events: [Int] = []
        // 1 Hz: 130 → 170 over 10 minutes, then back to 130 over 10 minutes.
        for i in 0...1200 {
            let t = Double(i)
            let mean = i <= 600 ? 130 + 40 * t / 600 : 170 - 40 * (t - 600) / 600
            let bpm = (mean + Double.random(in: -2...2, using: &random)).rounded()
            if let z = tracker.update(bpm: bpm, at: t) { events.append(z) }
        }
        #expect(events == [3, 4, 3, 2])
    }

    @Test("a spike past the boundary shorter than the 3 s dwell changes no zone")
    func spike() {
        var tracker = HeartRateZoneTracker(floors: [120, 140, 160, 180])
        _ = tracker.update(bpm: 130, at: 0)
        #expect(tracker.update(bpm: 150, at: 1) == nil)
        #expect(tracker.update(bpm: 150, at: 2) == nil)
        #expect(tracker.update(bpm: 131, at: 3) == nil)
        #expect(tracker.zone == 2)
        #expect(tracker.update(bpm: 150, at: 4) == nil)
        #expect(tracker.update(bpm: 150, at: 7) == 3)
    }
}

@Suite("Heart-rate summary over moving time")
struct HeartRateSummaryTests {
    static func profile() -> HeartRateProfile {
        var p = HeartRateProfile()
        p.maxBPM = 200
        p.restingBPM = 60
        p.sex = .male
        return p
    }

    @Test("each reading holds until the next, at most 5 s; the average is over that time")
    func timeWeighted() {
        let readings = [HeartRatePoint(time: 0, bpm: 100), HeartRatePoint(time: 1, bpm: 120),
                        HeartRatePoint(time: 3, bpm: 150), HeartRatePoint(time: 20, bpm: 160)]
        let s = HeartRateSummary(readings: readings, paused: PausedTime([]), from: 0, to: 21, profile: Self.profile())
        // 100 for 1 s, 120 for 2 s, 150 for 5 s (then missing until 20), 160 for 1 s.
        #expect(s.coveredSeconds == 9)
        #expect(abs((s.averageBPM ?? 0) - (100 + 240 + 750 + 160) / 9.0) < 1e-9)
        #expect(s.maxBPM == 160)
        #expect(s.movingSeconds == 21)
        // Zones of a 200 max: 1 below 120, 2 from 120, 3 from 140, 4 from 160.
        #expect(s.zoneSeconds == [1, 2, 5, 1, 0])
    }

    @Test("a reading without a heart rate holds nothing and a pause takes its time out, maximum included")
    func gapsAndPauses() {
        let readings = [HeartRatePoint(time: 0, bpm: 140), HeartRatePoint(time: 2, bpm: .nan),
                        HeartRatePoint(time: 4, bpm: 190), HeartRatePoint(time: 5, bpm: 150),
                        HeartRatePoint(time: 10, bpm: 150)]
        let paused = PausedTime([PauseInterval(start: 3.5, end: 4.8, detectedAt: 4.8, automatic: true)])
        let s = HeartRateSummary(readings: readings, paused: paused, from: 0, to: 11, profile: Self.profile())
        #expect(s.maxBPM == 150, "the 190 came while paused")
        // 140 for 2 s; 190 for 0.2 s (4.8–5); 150 for 5 s and 1 s.
        #expect(abs(s.coveredSeconds - 8.2) < 1e-9)
        #expect(abs((s.averageBPM ?? 0) - (280 + 38 + 900) / 8.2) < 1e-9)
        #expect(abs(s.movingSeconds - (11 - 1.3)) < 1e-9)
    }

    @Test("calories come from heart rate when it covers 90 % of moving time, scaled to it; otherwise ACSM")
    func calorieMethod() {
        let full = (0...600).map { HeartRatePoint(time: Double($0), bpm: 150) }
        let s = HeartRateSummary(readings: full, paused: PausedTime([]), from: 0, to: 600, profile: Self.profile())
        #expect(s.calorieMethod == .heartRate)
        #expect(abs(s.heartRateKcal - Self.profile().kcalPerMinute(bpm: 150) * 10) < 1e-6)
        let half = full.filter { $0.time < 300 }
        let h = HeartRateSummary(readings: half, paused: PausedTime([]), from: 0, to: 600, profile: Self.profile())
        #expect(h.calorieMethod == .acsm)
        #expect(h.coverage < 0.6)
    }

    @Test("without any heart rate the average and maximum are nil, never 0")
    func none() {
        let s = HeartRateSummary(readings: [HeartRatePoint(time: 0, bpm: .nan)], paused: PausedTime([]), from: 0, to: 60,
                                 profile: Self.profile())
        #expect(s.averageBPM == nil && s.maxBPM == nil)
        #expect(s.zoneSeconds == [0, 0, 0, 0, 0] && s.trimp == 0)
    }
}
