import Foundation
import Testing
@testable import MoonRunnerCore

@Suite("Stats: ACSM calories")
struct StatsCaloriesTests {
    let model = CalorieModel(bodyMass: 70)

    @Test("VO2 matches ACSM worked examples")
    func acsmExamples() {
        // Walking 3.5 mph (93.8 m/min) at 10 % grade: 9.38 + 16.88 + 3.5 = 29.76 ml/kg/min.
        let walk = model.vo2(speed: 93.8 / 60, grade: 0.10, equation: .walking)
        #expect(abs(walk - 29.764) < 0.01)
        // Running 6 mph (160.8 m/min) level: 0.2 × 160.8 + 3.5 = 35.66.
        let run = model.vo2(speed: 160.8 / 60, grade: 0, equation: .running)
        #expect(abs(run - 35.66) < 0.01)
        // Running uphill 5 %: + 0.9 × 160.8 × 0.05.
        let hill = model.vo2(speed: 160.8 / 60, grade: 0.05, equation: .running)
        #expect(abs(hill - (35.66 + 7.236)) < 0.01)
        // Standing still costs the resting 3.5 (1 MET).
        #expect(model.vo2(speed: 0, grade: 0, equation: .walking) == 3.5)
    }

    @Test("equation rule: run uses running above 4.8 km/h, walk switches to running above 8 km/h")
    func equationRule() {
        #expect(model.equation(activity: .run, speed: 2.8) == .running)
        #expect(model.equation(activity: .run, speed: 1.2) == .walking)   // a walk break
        #expect(model.equation(activity: .walk, speed: 1.4) == .walking)
        #expect(model.equation(activity: .walk, speed: 2.3) == .running)  // 8.3 km/h
        #expect(model.equation(activity: .walk, speed: 2.2) == .walking)
    }

    @Test("kcal = VO2 × mass × minutes / 1000 × 5")
    func kcalFromVO2() {
        // 30 min running at 10 km/h, level, 70 kg: VO2 = 0.2 × 166.67 + 3.5 = 36.83;
        // 36.83 × 70 × 30 / 1000 × 5 = 386.8 kcal.
        let kcal = model.kcal(speed: 10 / 3.6, grade: 0, seconds: 1800, activity: .run)
        #expect(abs(kcal - 386.75) < 0.1)
        // Heavier runners spend proportionally more.
        let heavy = CalorieModel(bodyMass: 90).kcal(speed: 10 / 3.6, grade: 0, seconds: 1800, activity: .run)
        #expect(abs(heavy / kcal - 90.0 / 70) < 1e-9)
    }

    @Test("a flat track at constant speed costs what the equation says for its moving time")
    func flatTrack() {
        let points = StatsTrack.line(from: 0, to: 1800, speed: 3)
        let track = model.kcal(points: points, pauses: [], activity: .run)
        let expected = model.kcal(speed: 3, grade: 0, seconds: 1800, activity: .run)
        #expect(abs(track - expected) / expected < 0.002)
    }

    @Test("climbing costs more, descending is costed as level, pauses cost nothing")
    func gradeAndPauses() {
        let flat = model.kcal(points: StatsTrack.line(from: 0, to: 1200, speed: 3), pauses: [], activity: .run)
        let up = model.kcal(points: StatsTrack.line(from: 0, to: 1200, speed: 3, climb: 0.05), pauses: [],
                            activity: .run)
        let down = model.kcal(points: StatsTrack.line(from: 0, to: 1200, speed: 3, climb: -0.05), pauses: [],
                              activity: .run)
        // Running 5 % uphill adds 0.9 × v × 0.05 to 0.2 × v + 3.5.
        let v = 3.0 * 60
        #expect(abs(up / flat - (0.2 * v + 0.9 * v * 0.05 + 3.5) / (0.2 * v + 3.5)) < 0.01)
        #expect(abs(down - flat) / flat < 1e-3)

        var split = StatsTrack.line(from: 0, to: 600, speed: 3)
        split += StatsTrack.line(from: 900, to: 1500, speed: 3, offset: 1800, newSegmentAtStart: true)
        let paused = model.kcal(points: split, pauses: [StatsTrack.pause(600, 900)], activity: .run)
        #expect(abs(paused - flat) / flat < 0.005)
    }

    @Test("live estimate from totals agrees with the track integral on a steady run")
    func totals() {
        let points = StatsTrack.line(from: 0, to: 1800, speed: 3)
        let track = model.kcal(points: points, pauses: [], activity: .run)
        let live = model.kcal(distance: 5400, moving: 1800, elevationGain: 0, activity: .run)
        #expect(abs(live - track) / track < 0.002)
        #expect(model.kcal(distance: 0, moving: 0, elevationGain: 0, activity: .walk) == 0)
    }
}
