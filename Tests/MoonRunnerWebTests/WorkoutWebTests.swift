import Foundation
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import HummingbirdTesting
import Testing
@testable import MoonRunnerWeb

@Suite("Web: the workout on the run screen")
struct WorkoutWebTests {
    /// A STATUS in the second 800 m of "15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy", 390 m to go.
    static func status(alert: String?, value: Double = 4.2) throws -> JSONValue {
        try JSONValue.parse(statusLine(alert: alert, value: value))
    }

    static func statusLine(alert: String?, value: Double = 4.2) throws -> String {
        let plan = try WorkoutPlan(WorkoutText.parse("15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy"))
        let band = try #require(plan.steps[3].target)
        var w = WorkoutStatusReply(WorkoutProgress(step: plan.steps[3], count: plan.steps.count, elapsed: 95, distance: 410,
                                                   remaining: 390, value: value, position: band.position(of: value),
                                                   alert: nil))
        w.alert = alert
        let json = String(decoding: try JSONEncoder().encode(w), as: UTF8.self)
        return FakeDaemon.status(.init()).replacingOccurrences(of: #""workout":null"#, with: #""workout":"# + json)
    }

    @Test("the run page renders the step, and the target, the pace now and what is left under the band")
    func livePage() async throws {
        let web = try TestWeb()
        let status = try Self.statusLine(alert: nil)
        web.daemon.state.withLock { $0.override["STATUS"] = status }
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/", cookie: cookie) { r in
                let html = String(buffer: r.body)
                #expect(html.contains(#"data-field="workout.step.index""#))
                for key in ["workout.step.target", "workout.value", "workout.remaining"] {
                    #expect(html.contains(#"data-field="\#(key)""#), "\(key) under the band")
                }
                #expect(html.contains(#"data-field="workout.remaining" data-value="390"><span class="n">390</span>"#))
            }
        }
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

@Suite("Web: a session run to a workout")
struct WorkoutSessionPageTests {
    /// 2 × (400 m at 4:00/km, 60 s standing rest), then 2 minutes at 5:00/km, by the engine.
    static func session(id: Int64) throws -> ExportSession {
        let workout = try WorkoutText.parse("2x(400m @3:50-4:10/km, 60s rest); 2min", name: "Tuesday")
        var analysis = TraceAnalysis(workout: try WorkoutPlan(workout))
        var north = 0.0, t = 1_714_548_600.0
        func go(_ seconds: Int, _ speed: Double) {
            for _ in 0..<seconds {
                t += 1
                north += speed
                analysis.feed(GPSFix(time: t, mode: 3, latitude: 51.5 + north / 111_200, longitude: -0.15, altitude: 30,
                                     eph: 8, speed: speed, track: 0), at: t)
            }
        }
        go(1, 0)
        let begin = t
        for _ in 0..<2 {
            go(100, 1000 / 240)
            go(60, 0)
        }
        go(130, 1000 / 300)
        let summary = analysis.finish(at: t)
        var stats = SessionStats()
        stats.startTime = begin
        stats.elapsed = summary.elapsed
        stats.moving = summary.moving
        stats.distance = summary.distance
        stats.points = analysis.track.count
        return ExportSession(id: id, activity: .run, startTime: begin, stats: stats, points: analysis.track,
                             events: summary.events, pauses: summary.pauses, workout: workout)
    }

    @Test("the session page lists each step: target, distance, time, pace, heart rate and time in target")
    func steps() async throws {
        let web = try TestWeb(daemon: FakeDaemon(sessions: [try Self.session(id: 21)]))
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/sessions/21", cookie: cookie) { r in
                #expect(r.status == .ok)
                let html = String(buffer: r.body)
                #expect(html.contains("<table class=\"workout\">"))
                #expect(html.contains("<td>Interval 1 of 2 · 1/5</td><td>3:50–4:10 min/km</td>"), "\(html)")
                #expect(html.contains("<td>Rest 2 of 2 · 4/5</td>"))
                #expect(html.contains("<th>In target</th>"))
            }
        }
    }
}

@Suite("Web: the workout library")
struct WorkoutLibraryPageTests {
    @Test("a workout typed on the phone is added through ?WORKOUT_ADD and listed with a start button; a mistake is a 422 with its reason")
    func typed() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf("/workouts", cookie: cookie)
            let (body, type) = Multipart.form(["csrf": csrf, "name": "Tuesday",
                                               "text": "15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy"],
                                              file: Data(), fileName: "")
            try await client.execute(uri: "/workouts", method: .post,
                                     headers: [.contentType: type, .cookie: cookie, .origin: TestWeb.origin], body: body) { r in
                #expect(r.status == .seeOther)
                #expect(r.headers[.location] == "/workouts?added=Tuesday")
            }
            try await client.get("/workouts", cookie: cookie) { r in
                let html = String(buffer: r.body)
                #expect(html.contains("<strong>Tuesday</strong>") && html.contains("14 Steps"))
                #expect(html.contains(#"name="workout" value="1""#))
            }
            let (bad, badType) = Multipart.form(["csrf": csrf, "text": "6x(800m"], file: Data(), fileName: "")
            try await client.execute(uri: "/workouts", method: .post,
                                     headers: [.contentType: badType, .cookie: cookie, .origin: TestWeb.origin], body: bad) { r in
                #expect(r.status == .unprocessableContent)
                #expect(String(buffer: r.body).contains("Not stored: not a workout: line 1"))
            }
        }
        #expect(web.daemon.state.withLock { $0.workouts.map(\.name) } == ["Tuesday"])
    }
}
