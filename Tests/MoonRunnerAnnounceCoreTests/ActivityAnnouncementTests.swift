import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerAnnounceCore

@Suite("Announcer: each activity in its own words")
struct ActivityAnnouncementTests {
    static func split(_ n: Int, pace: Double, distance: Double, rise: Double) -> String {
        """
        {"distance_m":\(distance),"elapsed_s":\(pace * distance / 1000),"elevation_change_m":\(rise),\
        "moving_s":\(pace * distance / 1000),"number":\(n),"pace_s":\(pace),"partial":false}
        """
    }

    @Test("the start names the activity, in English and in Mandarin", arguments: [
        ("run", "Run started.", "跑步开始。"), ("trail_run", "Trail run started.", "越野跑开始。"),
        ("walk", "Walk started.", "步行开始。"), ("hike", "Hike started.", "徒步开始。"), ("ride", "Ride started.", "骑行开始。"),
    ])
    func start(activity: String, english: String, mandarin: String) throws {
        var en = Feed(), zh = Feed(language: .chinese)
        #expect(try en.line(Lines.event("start", time: 1, detail: activity)) == [english])
        #expect(try zh.line(Lines.event("start", time: 1, detail: activity)) == [mandarin])
    }

    @Test("a ride's split is every 5 km and says its speed; its summary the average speed")
    func ride() throws {
        var f = Feed()
        _ = try f.line(Lines.status(time: 10, activity: "ride"))
        // The second 5 km in 10 minutes: 30 km/h (pace 120 s per km).
        #expect(try f.line(Lines.event("split", time: 20, cause: "distance", detail: "2",
                                       split: Self.split(2, pace: 120, distance: 5000, rise: 0)))
            == ["10 kilometres. Split 10 minutes. Speed 30 kilometres an hour."])
        var zh = Feed(language: .chinese)
        _ = try zh.line(Lines.status(time: 10, activity: "ride"))
        #expect(try zh.line(Lines.event("split", time: 20, cause: "distance", detail: "1",
                                        split: Self.split(1, pace: 120, distance: 5000, rise: 0)))
            == ["五公里。本段用时十分钟。速度每小时三十公里。"])
        var stop = Feed()
        _ = try stop.line(Lines.status(time: 1000, distance: 20_000, moving: 2400, activity: "ride"))
        _ = try stop.line(Lines.event("stop", time: 1005))
        #expect(try stop.line(Lines.status(time: 1006, state: .stopped, distance: 20_000, moving: 2400, activity: "ride"))
            == ["Ride finished. 20 kilometres in 40 minutes. Average speed 30 kilometres an hour."])
    }

    @Test("a hike's split says its climb rate after its pace: 84 m up in 12 minutes is 420 metres an hour")
    func hike() throws {
        var f = Feed()
        _ = try f.line(Lines.status(time: 10, activity: "hike"))
        #expect(try f.line(Lines.event("split", time: 20, cause: "distance", detail: "1",
                                       split: Self.split(1, pace: 720, distance: 1000, rise: 84)))
            == ["1 kilometre. Split 12 minutes. Pace 12 minutes per kilometre. Climbing 420 metres an hour."])
        var zh = Feed(language: .chinese)
        _ = try zh.line(Lines.status(time: 10, activity: "hike"))
        #expect(try zh.line(Lines.event("split", time: 20, cause: "distance", detail: "1",
                                        split: Self.split(1, pace: 720, distance: 1000, rise: 84)))
            == ["一公里。本段用时十二分钟。配速每公里十二分钟。爬升速度每小时四百二十米。"])
    }
}
