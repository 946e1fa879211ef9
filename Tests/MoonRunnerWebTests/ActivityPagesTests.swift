import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerWeb

@Suite("Web: each activity's figures")
struct ActivityPagesTests {
    @Test("a split's change of altitude is rounded before its sign: a flat split's -0.3 m reads 0 m, as the figure boxes say")
    func flatSplit() {
        #expect(FigureText.elevationChange(-0.3, .metric) == "0 m")
        #expect(FigureText.elevationChange(0.4, .metric) == "0 m")
        #expect(FigureText.elevationChange(-4.2, .metric) == "-4 m" && FigureText.elevationChange(12.6, .metric) == "+13 m")
        #expect(FigureText.elevationChange(-0.1, .imperial) == "0 ft" && FigureText.elevationChange(10, .imperial) == "+33 ft")
    }

    @Test("the run screen of a ride shows speed and average speed, no steps; a hike's adds the climb rate; a run's is as before")
    func grids() throws {
        let keys = { (a: Activity) in LiveView.grid(for: a.profile).map(\.key) }
        #expect(keys(.run) == LiveView.grid.map(\.key))
        #expect(keys(.ride) == ["speed_mps", "avg_speed_mps", "moving_s", "elevation_gain_m", "gps.grade",
                                "calories_kcal", "laps"])
        #expect(keys(.hike).contains("climb_rate_m_per_h"))
        let status = try JSONValue.parse(#"{"class":"STATUS","state":"recording","activity":"hike","climb_rate_m_per_h":418.6}"#)
        let view = LiveView(status: status, phrases: .english, units: .metric)
        let climb = try #require(view.gridFigures.first { $0.key == "climb_rate_m_per_h" })
        #expect(climb.text == "419 m/h" && climb.label == "Climb rate")
        #expect(view.activity == "hike" && view.json.contains(#""activity":"hike""#))
    }

    @Test("the history names all five activities in both languages")
    func names() {
        #expect(Activity.allCases.map { Phrases.english.activityName($0.rawValue) } == ["Run", "Trail run", "Walk", "Hike", "Ride"])
        #expect(Activity.allCases.map { Phrases.chinese.activityName($0.rawValue) } == ["跑步", "越野跑", "步行", "徒步", "骑行"])
        #expect(Phrases.english.activityName(nil) == "–")
    }
}
