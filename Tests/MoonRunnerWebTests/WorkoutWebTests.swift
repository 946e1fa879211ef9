import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerWeb

@Suite("Web: the workout on the run screen")
struct WorkoutWebTests {
    /// A STATUS in the second 800 m of "15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy", 390 m to go.
    static func status(alert: String?, value: Double = 4.2) throws -> JSONValue {
        let plan = try WorkoutPlan(WorkoutText.parse("15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy"))
        let band = try #require(plan.steps[3].target)
        var w = WorkoutStatusReply(WorkoutProgress(step: plan.steps[3], count: plan.steps.count, elapsed: 95, distance: 410,
                                                   remaining: 390, value: value, position: band.position(of: value),
                                                   alert: nil))
        w.alert = alert
        let json = String(decoding: try JSONEncoder().encode(w), as: UTF8.self)
        return try JSONValue.parse(FakeDaemon.status(.init()).replacingOccurrences(of: #""workout":null"#,
                                                                                   with: #""workout":"# + json))
    }

    @Test("the step, n of N, its target band, the pace now with the marker's place, what is left; in both languages")
    func live() throws {
        let en = LiveView(status: try Self.status(alert: nil), phrases: .english, units: .metric)
        #expect(en.flags["workout"] == true)
        #expect(en.workout.step.text == "Interval 2 of 6 · 4/14")
        #expect(en.workout.target.text == "3:50–4:00 min/km")
        #expect(en.workout.now.text == "3:58 min/km")
        #expect(en.workout.left.text == "390 m")
        #expect(en.workout.alert.text == "On target")
        let position = try #require(Double(en.workout.marker.value))
        #expect(position > 0.1 && position < 0.4, "\(position)")
        #expect(en.json.contains(#""workout.remaining":["390 m","390"]"#))
        let zh = LiveView(status: try Self.status(alert: "target_low", value: 4.0), phrases: .chinese, units: .metric)
        #expect(zh.workout.step.text == "间歇 第2/6组 · 4/14")
        #expect(zh.workout.alert.text == "加快")
        #expect(zh.workout.marker.value == "-0.25", "held on the bar")
        let none = LiveView(status: try JSONValue.parse(FakeDaemon.status(.init())), phrases: .english, units: .metric)
        #expect(none.flags["workout"] == false && none.workout.step.text == "")
    }
}
