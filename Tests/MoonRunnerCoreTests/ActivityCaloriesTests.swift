import Foundation
import Testing
@testable import MoonRunnerCore

@Suite("Stats: each activity's calories")
struct ActivityCaloriesTests {
    let model = CalorieModel(bodyMass: 70)

    @Test("a hike costs by Pandolf (1977), no load, terrain 1.1: 70 kg at 0.6 m/s on 25 % is 550.8 W, 474 kcal an hour")
    func pandolf() {
        // 1.5 × 70 + 1.1 × 70 × (1.5 × 0.36 + 0.35 × 0.6 × 25) = 105 + 445.83 W.
        #expect(abs(PandolfEquation(bodyMass: 70).watts(speed: 0.6, grade: 0.25) - 550.83) < 0.01)
        let hour = model.kcal(speed: 0.6, grade: 0.25, seconds: 3600, activity: .hike)
        #expect(abs(hour - 550.83 * 3600 / 4184) < 0.01)
        // Descents cost as level walking; grades past 45 % (scrambling) as 45 %.
        #expect(model.kcal(speed: 0.8, grade: -0.2, seconds: 60, activity: .hike)
                == model.kcal(speed: 0.8, grade: 0, seconds: 60, activity: .hike))
        #expect(model.kcal(speed: 0.4, grade: 0.7, seconds: 60, activity: .hike)
                == model.kcal(speed: 0.4, grade: 0.45, seconds: 60, activity: .hike))
        // Standing costs 1.5 W/kg whatever the grade.
        #expect(PandolfEquation(bodyMass: 70).watts(speed: 0, grade: 0.3) == 105)
    }

    @Test("a ride costs the Compendium's METs by speed, 1 kcal per kg per hour each; climbs at least 10, descents 4",
          arguments: [(12.0, 0.0, 4.0), (18.0, 0.0, 6.8), (21.0, 0.0, 8.0), (25.0, 0.0, 10.0), (29.0, 0.0, 12.0),
                      (40.0, 0.0, 15.8), (18.0, 0.05, 10.0), (54.0, -0.05, 4.0)])
    func cyclingMETs(kmh: Double, grade: Double, met: Double) {
        #expect(CyclingMETs.met(speed: kmh / 3.6, grade: grade) == met)
        let hour = model.kcal(speed: kmh / 3.6, grade: grade, seconds: 3600, activity: .ride)
        #expect(abs(hour - met * 70) < 1e-9)
    }

    @Test("run and trail run cost by the ACSM running equation, walk by the walking one, as before")
    func acsm() {
        let run = model.kcal(speed: 3, grade: 0.05, seconds: 600, activity: .run)
        #expect(model.kcal(speed: 3, grade: 0.05, seconds: 600, activity: .trailRun) == run)
        #expect(model.equation(activity: .trailRun, speed: 1.2) == .walking)  // a walk break
        let walk = model.kcal(speed: 1.4, grade: 0, seconds: 600, activity: .walk)
        #expect(abs(walk - (0.1 * 84 + 3.5) * 70 * 10 / 1000 * 5) < 1e-9)
    }

    @Test("a ride splits every 5 km: 12 km at a steady speed are two splits and a partial of 2 km")
    func rideSplits() {
        let points = StatsTrack.line(from: 0, to: 1200, speed: 10)
        let splits = Splits.compute(points: points, pauses: [], units: .metric, unitsPerSplit: 5)
        #expect(splits.map(\.number) == [1, 2, 3])
        #expect(splits.map { ($0.distance / 10).rounded() * 10 } == [5000, 5000, 2000])
        #expect(abs(splits[0].moving - 500) < 1.5)
    }
}
