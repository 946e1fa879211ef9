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

    @Test("the history's totals are kept per activity: a ride's kilometres are not added to the runs' of its week")
    func totalsPerActivity() {
        let day = 86_400.0, monday = 1_714_953_600.0  // 2024-05-06, a Monday
        func info(_ id: Int64, _ activity: Activity, _ t: Double, _ metres: Double) -> SessionInfo {
            SessionInfo(id: id, activity: activity.rawValue, state: .stopped, startTime: t, endTime: t + 3600,
                        distanceM: metres, elapsedS: 3600, movingS: 3000, steps: 0, interrupted: false)
        }
        let all = [info(4, .ride, monday + 2 * day, 40_000), info(3, .run, monday + day, 10_000),
                   info(2, .run, monday, 5_000), info(1, .walk, monday - 6 * day, 3_000)]
        let weeks = SessionsPage.totals(all, count: 8, units: .metric, phrases: .english) { s in
            let d = DateText.weekStart(s.startTime)
            return (d, DateText.day(Double(d) * 86_400))
        }
        #expect(weeks.map { "\($0.label) \($0.activity) \($0.count) \($0.distance)" } ==
                ["2024-05-06 Run 2 15.00 km", "2024-05-06 Ride 1 40.00 km", "2024-04-29 Walk 1 3.00 km"])
        let one = SessionsPage.totals(all, count: 1, units: .metric, phrases: .english) { s in
            let d = DateText.weekStart(s.startTime)
            return (d, DateText.day(Double(d) * 86_400))
        }
        #expect(one.count == 2, "the count is of periods: the last week's run and ride")
    }
}
