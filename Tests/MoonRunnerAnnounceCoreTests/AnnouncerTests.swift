import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerAnnounceCore

/// Lines shaped as the daemon sends them (moonrunner-protocol(7): STATUS, EVENT).
enum Lines {
    /// A STATUS as the daemon writes it (its own encoder), with a `course`
    /// object when one is given.
    static func status(time: Double, state: SessionState = .recording, distance: Double = 0, moving: Double = 0,
                       elapsed: Double? = nil, units: UnitSystem = .metric, quiet: Bool = false, activity: String = "run",
                       course: String? = nil, hrBpm: Double? = nil) -> String {
        var stats = SessionStats()
        stats.activity = Activity(rawValue: activity) ?? .run
        stats.distance = distance
        stats.moving = moving
        stats.elapsed = elapsed ?? moving
        let reply = StatusReply(time: time, state: state, session: 4, stats: stats,
                                gps: GPSStatus(health: .ok, grade: .best, fixes: 10, connects: 1),
                                imu: IMUStatus(health: .ok, samples: 100, rejected: 0, busErrors: 0, overflows: 0),
                                store: StoreStatus(health: .ok, pending: 0, lastError: nil), lastTransition: nil,
                                units: units, quiet: quiet, hrBpm: hrBpm, hrZone: hrBpm.map { _ in 4 },
                                hrState: hrBpm == nil ? HeartRateLinkState.none : .connected)
        var line = ReplyEncoder.line(reply)
        if let course, course != "null" {
            // The daemon's whole `course` object, with the members a test gives.
            var members: [String: Any] = ["id": 1, "name": "Test course", "length_m": 5000, "progress_m": NSNull(),
                                          "to_go_m": NSNull(), "eta_s": NSNull(), "distance_to_course_m": NSNull(),
                                          "on_course": false, "bearing_to_course_deg": NSNull(), "finished": false]
            let given = (try? JSONSerialization.jsonObject(with: Data(course.utf8))) as? [String: Any] ?? [:]
            members.merge(given) { $1 }
            let object = (try? JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])) ?? Data("null".utf8)
            line = line.replacingOccurrences(of: "\"course\":null", with: "\"course\":" + String(decoding: object, as: UTF8.self))
        }
        return line
    }

    static func event(_ name: String, time: Double, cause: String = "command", detail: String? = nil,
                      split: String = "null") -> String {
        """
        {"class":"EVENT","cause":"\(cause)","detail":\(detail.map { "\"\($0)\"" } ?? "null"),"detected_at":\(time),\
        "event":"\(name)","session":4,"split":\(split),"state":"recording","time":\(time)}
        """
    }

    /// A `turn_ahead` or `turn_now` as the daemon writes it (its own encoder).
    static func cue(_ kind: SessionEventKind, time: Double, _ cue: CueEvent) -> String {
        ReplyEncoder.line(EventReply(session: 4, event: SessionEvent(kind: kind, time: time, detectedAt: time,
                                                                    cause: "course", state: .recording,
                                                                    detail: cue.kind.rawValue, cue: cue)))
    }

    static func split(_ n: Int, pace: Double, elapsed: Double? = nil, distance: Double = 1000) -> String {
        """
        {"distance_m":\(distance),"elapsed_s":\(elapsed ?? pace),"elevation_change_m":null,"moving_s":\(pace),\
        "number":\(n),"pace_s":\(pace),"partial":false}
        """
    }
}

/// Feeds lines to an announcer as the watcher loop does.
struct Feed {
    var announcer: Announcer
    var now = 100.0

    init(_ settings: AnnounceSettings = AnnounceSettings(), language: Language = .english) {
        var s = settings
        s.language = language
        announcer = Announcer(settings: s)
        announcer.connected()
    }

    mutating func line(_ text: String, after seconds: Double = 0.1) throws -> [String] {
        now += seconds
        switch ReplyEncoder.replyClass(of: text) {
        case "STATUS":
            let s = try ReplyEncoder.decode(StatusReply.self, from: text)
            return announcer.receive(status: s, course: CourseGlance.of(statusLine: text), at: now).map(\.text)
        case "EVENT":
            return announcer.receive(event: try ReplyEncoder.decode(EventReply.self, from: text), at: now).map(\.text)
        default:
            Issue.record("not a STATUS or EVENT: \(text)")
            return []
        }
    }
}

@Suite("Announcer: what is said for each EVENT and STATUS")
struct AnnouncerTests {
    @Test("a split: distance, split time and pace, in the configured units and in Mandarin")
    func split() throws {
        var f = Feed()
        _ = try f.line(Lines.status(time: 10))
        #expect(try f.line(Lines.event("split", time: 20, cause: "distance", detail: "3", split: Lines.split(3, pace: 312)))
            == ["3 kilometres. Split 5 minutes 12. Pace 5 12 per kilometre."])
        // A pause inside the split: the split's clock time and its moving pace differ.
        #expect(try f.line(Lines.event("split", time: 30, cause: "distance", detail: "4",
                                       split: Lines.split(4, pace: 305, elapsed: 395)))
            == ["4 kilometres. Split 6 minutes 35. Pace 5 oh 5 per kilometre."])
        var miles = Feed()
        _ = try miles.line(Lines.status(time: 10, units: .imperial))
        #expect(try miles.line(Lines.event("split", time: 20, cause: "distance", detail: "1",
                                           split: Lines.split(1, pace: 502, distance: 1609.344)))
            == ["1 mile. Split 8 minutes 22. Pace 8 22 per mile."])
        var zh = Feed(language: .chinese)
        _ = try zh.line(Lines.status(time: 10))
        #expect(try zh.line(Lines.event("split", time: 20, cause: "distance", detail: "2", split: Lines.split(2, pace: 312)))
            == ["两公里。本段用时五分十二秒。配速每公里五分十二秒。"])
    }

    @Test("stop waits for the STATUS after it and sums up distance, moving time and average pace")
    func summary() throws {
        var f = Feed()
        _ = try f.line(Lines.status(time: 1000, distance: 3800, moving: 1190))
        #expect(try f.line(Lines.event("stop", time: 1005)).isEmpty)
        // A STATUS from before the stop does not release it.
        #expect(try f.line(Lines.status(time: 1004, distance: 3900, moving: 1200)).isEmpty)
        #expect(try f.line(Lines.status(time: 1006, state: .stopped, distance: 3931, moving: 1210, elapsed: 1300))
            == ["Run finished. 3.93 kilometres in 20 minutes 10. Average pace 5 8 per kilometre."].map {
                $0.replacingOccurrences(of: "5 8 per", with: "5 oh 8 per") })
        // With no STATUS at all the summary still comes, from the last one known.
        var g = Feed(language: .chinese)
        _ = try g.line(Lines.status(time: 1000, distance: 2000, moving: 600, activity: "walk"))
        _ = try g.line(Lines.event("stop", time: 1005))
        #expect(g.announcer.tick(at: g.now + 1).isEmpty)
        #expect(g.announcer.tick(at: g.now + Announcer.statusWait).map(\.text) == ["步行结束。两公里，用时十分钟。平均配速每公里五分钟。"])
        // A session that hardly moved.
        var h = Feed()
        _ = try h.line(Lines.event("stop", time: 5))
        #expect(try h.line(Lines.status(time: 6, state: .stopped, distance: 3, moving: 20, elapsed: 42)) == ["Finished after 42 seconds."])
    }

    @Test("off course says the way back from the STATUS that follows; the other course events")
    func course() throws {
        var f = Feed()
        _ = try f.line(Lines.status(time: 10, course: "{\"bearing_to_course_deg\":40,\"distance_to_course_m\":80}"))
        #expect(try f.line(Lines.event("off_course", time: 11, cause: "course")).isEmpty)
        #expect(try f.line(Lines.status(time: 12, course: "{\"bearing_to_course_deg\":272.5,\"distance_to_course_m\":64}"))
            == ["Off course. The route is 60 metres to the west."])
        _ = try f.line(Lines.event("off_course", time: 13, cause: "course"))
        #expect(try f.line(Lines.status(time: 14, course: "{\"bearing_to_course_deg\":135}")) == ["Off course. The route is to the south-east."])
        _ = try f.line(Lines.event("off_course", time: 15, cause: "course"))
        #expect(try f.line(Lines.status(time: 16, course: "null")) == ["Off course."])
        #expect(try f.line(Lines.event("on_course", time: 17, cause: "course")) == ["Back on course."])
        #expect(try f.line(Lines.event("course_to_go", time: 18, cause: "course", detail: "1000")) == ["1 kilometre to go."])
        #expect(try f.line(Lines.event("course_to_go", time: 19, cause: "course", detail: "500")) == ["500 metres to go."])
        #expect(try f.line(Lines.event("course_finished", time: 20, cause: "course")) == ["Course finished."])
        #expect(try f.line(Lines.event("arrived", time: 21, cause: "course", detail: "Parliament Hill")) == ["Arrived at Parliament Hill."])
        #expect(try f.line(Lines.event("arrived", time: 22, cause: "course")) == ["You have arrived."])

        var zh = Feed(language: .chinese)
        _ = try zh.line(Lines.status(time: 10))
        _ = try zh.line(Lines.event("off_course", time: 11, cause: "course"))
        #expect(try zh.line(Lines.status(time: 12, course: "{\"bearing_to_course_deg\":0,\"distance_to_course_m\":120}"))
            == ["偏离路线。路线在北方一百二十米。"])
        #expect(try zh.line(Lines.event("course_to_go", time: 18, cause: "course", detail: "500")) == ["还剩五百米。"])
        #expect(try zh.line(Lines.event("course_to_go", time: 18, cause: "course", detail: "1000")) == ["还剩一公里。"])
        #expect(try zh.line(Lines.event("course_finished", time: 20, cause: "course")) == ["路线完成。"])
    }

    @Test("badges: earned, passed again, silver and gold, with the names in Mandarin")
    func badges() throws {
        var f = Feed()
        #expect(try f.line(Lines.event("badge", time: 1, cause: "earned", detail: "Moon")) == ["Badge earned: Moon."])
        #expect(try f.line(Lines.event("badge", time: 1, cause: "distance", detail: "Mercury")) == ["Mercury distance passed."])
        #expect(try f.line(Lines.event("badge", time: 1, cause: "silver", detail: "Venus")) == ["Silver Venus badge."])
        #expect(try f.line(Lines.event("badge", time: 1, cause: "gold", detail: "Mars")) == ["Gold Mars badge."])
        var zh = Feed(language: .chinese)
        #expect(try zh.line(Lines.event("badge", time: 1, cause: "gold", detail: "Jupiter")) == ["获得木星金徽章。"])
        #expect(try zh.line(Lines.event("badge", time: 1, cause: "earned", detail: "Moon")) == ["获得月球徽章。"])
    }

    @Test("auto-pause and resume come with a tone; manual pause, lap, GPS; a restart's resume says nothing")
    func transitions() throws {
        var f = Feed()
        let pause = f.announcer.receive(event: try ReplyEncoder.decode(EventReply.self, from: Lines.event("autopause", time: 5, cause: "still")), at: 1)
        #expect(pause.map(\.text) == ["Auto-paused."] && pause.map(\.cue) == [.pause])
        let resume = f.announcer.receive(event: try ReplyEncoder.decode(EventReply.self, from: Lines.event("autoresume", time: 6, cause: "steps")), at: 2)
        #expect(resume.map(\.cue) == [.resume])
        #expect(try f.line(Lines.event("start", time: 1, detail: "walk")) == ["Walk started."])
        #expect(try f.line(Lines.event("pause", time: 7)) == ["Paused."])
        #expect(try f.line(Lines.event("resume", time: 8)) == ["Resumed."])
        #expect(try f.line(Lines.event("resume", time: 9, cause: "recovery")).isEmpty)
        #expect(try f.line(Lines.event("lap", time: 10, detail: "3")) == ["Lap 3."])
        #expect(try f.line(Lines.event("gps_lost", time: 11, cause: "gps")) == ["GPS signal lost."])
        #expect(try f.line(Lines.event("gps_regained", time: 12, cause: "gps")) == ["GPS signal back."])
        #expect(try f.line(Lines.event("fault", time: 13, cause: "imu", detail: "EIO")).isEmpty)
        #expect(try f.line(Lines.event("some_future_event", time: 14)).isEmpty)
        var zh = Feed(language: .chinese)
        #expect(try zh.line(Lines.event("lap", time: 10, detail: "12")) == ["第十二圈。"])
        #expect(try zh.line(Lines.event("gps_lost", time: 11, cause: "gps")) == ["卫星信号丢失。"])
    }

    @Test("every switch in the settings silences its announcements; the tone can go alone")
    func switches() throws {
        var s = AnnounceSettings()
        s.splits = false
        s.laps = false
        s.badges = false
        s.course = false
        s.gps = false
        s.summary = false
        s.start = false
        s.pauseResume = false
        s.autoPause = false
        var f = Feed(s)
        let events = [Lines.event("split", time: 1, cause: "distance", detail: "1", split: Lines.split(1, pace: 300)),
                      Lines.event("lap", time: 1, detail: "1"), Lines.event("badge", time: 1, cause: "earned", detail: "Moon"),
                      Lines.event("off_course", time: 1), Lines.event("on_course", time: 1),
                      Lines.event("course_to_go", time: 1, detail: "500"), Lines.event("gps_lost", time: 1),
                      Lines.event("stop", time: 1), Lines.event("start", time: 1, detail: "run"), Lines.event("pause", time: 1)]
        for e in events { #expect(try f.line(e).isEmpty, "\(e)") }
        #expect(f.announcer.tick(at: f.now + 10).isEmpty)
        let cueOnly = f.announcer.receive(event: try ReplyEncoder.decode(EventReply.self, from: Lines.event("autopause", time: 1)), at: f.now)
        #expect(cueOnly.map(\.text) == [""] && cueOnly.map(\.cue) == [.pause])
        s.autoPauseCue = false
        var g = Feed(s)
        #expect(try g.line(Lines.event("autopause", time: 1)).isEmpty)
    }

    @Test("quiet in STATUS silences everything until it is lifted")
    func quiet() throws {
        var f = Feed()
        _ = try f.line(Lines.status(time: 1, quiet: true))
        #expect(try f.line(Lines.event("lap", time: 2, detail: "1")).isEmpty)
        _ = try f.line(Lines.event("stop", time: 3))
        #expect(try f.line(Lines.status(time: 4, state: .stopped, distance: 2000, moving: 600, quiet: true)).isEmpty)
        _ = try f.line(Lines.status(time: 5, quiet: false))
        #expect(try f.line(Lines.event("lap", time: 6, detail: "2")) == ["Lap 2."])
    }

    @Test("every N minutes of moving time; a reconnect or a new session only sets the next mark")
    func interval() throws {
        var s = AnnounceSettings()
        s.everyMinutes = 5
        var f = Feed(s)
        #expect(try f.line(Lines.status(time: 1, distance: 100, moving: 30)).isEmpty)
        #expect(try f.line(Lines.status(time: 2, distance: 900, moving: 299)).isEmpty)
        #expect(try f.line(Lines.status(time: 3, distance: 1000, moving: 301)) == ["5 minutes. 1 kilometre. Average pace 5 1 per kilometre."].map {
            $0.replacingOccurrences(of: "5 1 per", with: "5 oh 1 per") })
        #expect(try f.line(Lines.status(time: 4, state: .autoPaused, distance: 1000, moving: 650)).isEmpty)
        f.announcer.connected()
        // After a reconnect at 11 minutes: nothing for the 10-minute mark already past.
        #expect(try f.line(Lines.status(time: 5, distance: 2200, moving: 660)).isEmpty)
        #expect(try f.line(Lines.status(time: 6, distance: 3000, moving: 900)).count == 1)
    }

    /// An event of each kind as the daemon sends it, with what its sentence needs.
    static let eventOfEachKind: [SessionEventKind: String] = [
        .start: Lines.event("start", time: 1, detail: "run"),
        .pause: Lines.event("pause", time: 1),
        .resume: Lines.event("resume", time: 1),
        .autopause: Lines.event("autopause", time: 1, cause: "still"),
        .autoresume: Lines.event("autoresume", time: 1, cause: "steps"),
        .lap: Lines.event("lap", time: 1, detail: "2"),
        .stop: Lines.event("stop", time: 1),
        .badge: Lines.event("badge", time: 1, cause: "earned", detail: "Moon"),
        .fault: Lines.event("fault", time: 1, cause: "imu", detail: "EIO"),
        .offCourse: Lines.event("off_course", time: 1, cause: "course"),
        .onCourse: Lines.event("on_course", time: 1, cause: "course"),
        .courseToGo: Lines.event("course_to_go", time: 1, cause: "course", detail: "500"),
        .courseFinished: Lines.event("course_finished", time: 1, cause: "course"),
        .arrived: Lines.event("arrived", time: 1, cause: "course"),
        .split: Lines.event("split", time: 1, cause: "distance", detail: "1", split: Lines.split(1, pace: 300)),
        .gpsLost: Lines.event("gps_lost", time: 1, cause: "gps"),
        .gpsRegained: Lines.event("gps_regained", time: 1, cause: "gps"),
        .hrConnected: Lines.event("hr_connected", time: 1, cause: "hr"),
        .hrLost: Lines.event("hr_lost", time: 1, cause: "hr"),
        .hrZone: Lines.event("hr_zone", time: 1, cause: "hr", detail: "4"),
        .terrainLost: Lines.event("terrain_lost", time: 1, cause: "terrain", detail: "no tile N41E002"),
        .terrainRegained: Lines.event("terrain_regained", time: 1, cause: "terrain"),
        .workoutStep: (try? WorkoutLines.event(.workoutStep, step: 1, time: 1)) ?? "",
        .targetLow: (try? WorkoutLines.event(.targetLow, step: 1, time: 1, measure: .pace, value: 4)) ?? "",
        .targetHigh: (try? WorkoutLines.event(.targetHigh, step: 1, time: 1, measure: .pace, value: 4.5)) ?? "",
        .targetOK: (try? WorkoutLines.event(.targetOK, step: 1, time: 1, measure: .pace, value: 4.2)) ?? "",
        .workoutDone: (try? WorkoutLines.event(.workoutDone, step: 13, time: 1)) ?? "",
        .batteryLow: Lines.event("battery_low", time: 1, cause: "battery", detail: "20"),
        .turnAhead: Lines.cue(.turnAhead, time: 1, CueEvent(kind: .left, name: nil, courseM: 500, distanceM: 60)),
        .turnNow: Lines.cue(.turnNow, time: 1, CueEvent(kind: .left, name: nil, courseM: 500, distanceM: 8)),
    ]

    @Test("every kind of event is said, or listed as silent on purpose with the reason: none is silent by accident",
          arguments: SessionEventKind.allCases)
    func everyKind(kind: SessionEventKind) throws {
        guard let event = Self.eventOfEachKind[kind] else {
            Issue.record("no example of \(kind.rawValue): add one above, then say it or list it in Announcer.silentKinds")
            return
        }
        var f = Feed()
        _ = try f.line(Lines.status(time: 0.5, hrBpm: 150))
        // The STATUS after the event releases the kinds that wait for one.
        let said = try f.line(event) + f.line(Lines.status(time: 2, hrBpm: 150))
        if let why = Announcer.silentKinds[kind] {
            #expect(said.isEmpty, "\(kind.rawValue) is listed as silent (\(why)) but said \(said)")
            #expect(!why.isEmpty)
        } else {
            #expect(said.count == 1 && said.allSatisfy { !$0.isEmpty }, "\(kind.rawValue) said \(said)")
        }
    }

    @Test("each setting switches off exactly its kinds of event")
    func enabledKinds() {
        let all = AnnounceSettings()
        let off: [(WritableKeyPath<AnnounceSettings, Bool>, [SessionEventKind])] = [
            (\.start, [.start]), (\.pauseResume, [.pause, .resume]), (\.laps, [.lap]), (\.splits, [.split]),
            (\.summary, [.stop]), (\.badges, [.badge]), (\.course, [.offCourse, .onCourse, .courseToGo, .courseFinished, .arrived]),
            (\.gps, [.gpsLost, .gpsRegained]), (\.heartRate, [.hrConnected, .hrLost, .hrZone]),
            (\.turns, [.turnAhead, .turnNow]), (\.battery, [.batteryLow]),
        ]
        for (setting, kinds) in off {
            var s = all
            s[keyPath: setting] = false
            let silenced = SessionEventKind.allCases.filter { Announcer(settings: all).enabled($0) && !Announcer(settings: s).enabled($0) }
            #expect(silenced == kinds, "\(setting)")
        }
        // The auto-pause goes quiet only with both its voice and its tone off.
        var s = all
        s.autoPause = false
        #expect(Announcer(settings: s).enabled(.autopause))
        s.autoPauseCue = false
        #expect(!Announcer(settings: s).enabled(.autopause) && !Announcer(settings: s).enabled(.autoresume))
    }
}

@Suite("Speech queue: late announcements are dropped, not read out")
struct SpeechQueueTests {
    static func a(_ text: String, at t: Double) -> Announcement {
        Announcement(text: text, trigger: "lap", detectedAt: t, receivedAt: t)
    }

    @Test("what waited longer than max_delay_s is dropped; the fresh one after it is said")
    func stale() {
        var q = SpeechQueue(maxDelay: 5)
        q.push([Self.a("old", at: 0), Self.a("older than 5 s", at: 1), Self.a("fresh", at: 7)])
        let (next, dropped) = q.next(at: 7.5)
        #expect(next?.text == "fresh")
        #expect(dropped.map(\.text) == ["old", "older than 5 s"])
        #expect(q.isEmpty)
        #expect(q.next(at: 8).next == nil)
    }

    @Test("a burst beyond capacity keeps the newest; clear empties it")
    func burst() {
        var q = SpeechQueue(maxDelay: 5, capacity: 3)
        let dropped = q.push((0..<5).map { Self.a("\($0)", at: 10) })
        #expect(dropped.map(\.text) == ["0", "1"])
        #expect(q.count == 3)
        #expect(q.clear().map(\.text) == ["2", "3", "4"])
        #expect(q.isEmpty)
    }
}
