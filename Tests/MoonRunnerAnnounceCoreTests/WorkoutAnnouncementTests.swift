import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerAnnounceCore

/// Workout events as the daemon writes them (its own encoder), from a plan.
enum WorkoutLines {
    static func plan() throws -> WorkoutPlan {
        try WorkoutPlan(WorkoutText.parse("15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy"))
    }

    /// A STATUS with the workout's progress: step `step`, `left` of it to go.
    static func status(time: Double, step: Int, left: Double) throws -> String {
        let plan = try plan()
        let progress = WorkoutProgress(step: plan.steps[step], count: plan.steps.count, elapsed: 0, distance: 0,
                                       remaining: left, value: nil, position: nil, alert: nil)
        let reply = StatusReply(time: time, state: .recording, session: 4, stats: SessionStats(),
                                gps: GPSStatus(health: .ok, grade: .best, fixes: 10, connects: 1),
                                imu: IMUStatus(health: .ok, samples: 100, rejected: 0, busErrors: 0, overflows: 0),
                                store: StoreStatus(health: .ok, pending: 0, lastError: nil), lastTransition: nil,
                                units: .metric, workout: WorkoutStatusReply(progress))
        return ReplyEncoder.line(reply)
    }

    static func event(_ kind: SessionEventKind, step: Int, time: Double, measure: TargetMeasure? = nil,
                      value: Double? = nil, summary: WorkoutTally? = nil) throws -> String {
        let plan = try plan()
        let info = WorkoutEventInfo(step: plan.steps[step], steps: plan.steps.count, measure: measure, value: value,
                                    summary: summary)
        return ReplyEncoder.line(EventReply(session: 4, event: SessionEvent(
            kind: kind, time: time, detectedAt: time, cause: measure?.rawValue ?? "distance", state: .recording,
            workout: info)))
    }
}

@Suite("Announcer: workouts")
struct WorkoutAnnouncementTests {
    @Test("each step is said as it begins with its round and target; a rest with its time; the end, in English")
    func stepsInEnglish() throws {
        var f = Feed()
        #expect(try f.line(try WorkoutLines.event(.workoutStep, step: 0, time: 1)) == ["Warm-up: 15 minutes."])
        #expect(try f.line(try WorkoutLines.event(.workoutStep, step: 3, time: 2))
            == ["Interval 2 of 6: 800 metres at 3 50 to 4 minutes per kilometre."])
        #expect(try f.line(try WorkoutLines.event(.workoutStep, step: 4, time: 3)) == ["Rest 2 of 6, 1 minute 30."])
        #expect(try f.line(try WorkoutLines.event(.workoutDone, step: 13, time: 4)) == ["Workout complete: 14 steps."])
    }

    @Test("the same in Mandarin")
    func stepsInMandarin() throws {
        var f = Feed(language: .chinese)
        #expect(try f.line(try WorkoutLines.event(.workoutStep, step: 3, time: 2))
            == ["间歇，第二组，共六组：八百米，配速每公里三分五十秒到四分钟。"])
        #expect(try f.line(try WorkoutLines.event(.targetLow, step: 3, time: 3, measure: .pace, value: 4)) == ["加快配速。"])
        #expect(try f.line(try WorkoutLines.event(.workoutDone, step: 13, time: 4)) == ["训练完成，共十四段。"])
    }

    /// 13 of the 14 steps in full (the cool-down cut short), 87 % of the judged
    /// time on target, the efforts 4800 m in 1128 s: 3:55 per km.
    static var tally: WorkoutTally {
        var t = WorkoutTally()
        t.completed = 13
        t.skipped = 1
        t.targetSeconds = 600
        t.inTargetSeconds = 522
        t.activeDistance = 4800
        t.activeMoving = 1128
        return t
    }

    @Test("the end's summary: the steps done, the share on target and the efforts' pace, in English and in Mandarin")
    func summary() throws {
        var en = Feed()
        #expect(try en.line(try WorkoutLines.event(.workoutDone, step: 13, time: 4, summary: Self.tally))
            == ["Workout complete: 13 of 14 steps in full. On target 87 percent of the time. "
                + "Efforts at 3 55 per kilometre on average."])
        var zh = Feed(language: .chinese)
        #expect(try zh.line(try WorkoutLines.event(.workoutDone, step: 13, time: 4, summary: Self.tally))
            == ["训练完成，十四段中完整完成十三段。目标区间内时间占百分之八十七。训练段平均配速每公里三分五十五秒。"])
        // Every step in full, no target, no effort: only the count.
        var plain = WorkoutTally()
        plain.completed = 14
        var again = Feed()
        #expect(try again.line(try WorkoutLines.event(.workoutDone, step: 13, time: 4, summary: plain))
            == ["Workout complete: 14 steps."])
    }

    @Test("a pace alert says speed up, ease off, back on pace; a heart-rate one its own words")
    func alerts() throws {
        var f = Feed()
        #expect(try f.line(try WorkoutLines.event(.targetLow, step: 1, time: 5, measure: .pace, value: 4)) == ["Speed up."])
        #expect(try f.line(try WorkoutLines.event(.targetHigh, step: 1, time: 6, measure: .pace, value: 4.5)) == ["Ease off."])
        #expect(try f.line(try WorkoutLines.event(.targetOK, step: 1, time: 7, measure: .pace, value: 4.2)) == ["Back on pace."])
        #expect(try f.line(try WorkoutLines.event(.targetHigh, step: 1, time: 8, measure: .hr, value: 181))
            == ["Heart rate high, ease off."])
    }

    @Test("the splits give way to the workout: none from its first step to its end, then again")
    func splitsGiveWay() throws {
        var f = Feed()
        let split = Lines.event("split", time: 10, cause: "distance", detail: "1", split: Lines.split(1, pace: 300))
        _ = try f.line(try WorkoutLines.event(.workoutStep, step: 0, time: 1))
        #expect(try f.line(split).isEmpty)
        _ = try f.line(try WorkoutLines.event(.workoutDone, step: 13, time: 20))
        #expect(try f.line(split).count == 1)
    }

    @Test("near a step's end: 200 metres left, 30 seconds left, a rest's 10 seconds; once each, never in a short step")
    func countdown() throws {
        var f = Feed()
        // Step 3 is 800 m: said once when 200 m are left.
        var said: [String] = []
        for (t, left) in [(1.0, 260.0), (2, 215), (3, 198), (4, 180)] { said += try f.line(try WorkoutLines.status(time: t, step: 3, left: left)) }
        #expect(said == ["200 metres left."])
        // Step 4 is the 90 s rest.
        said = []
        for (t, left) in [(5.0, 12.0), (6, 10), (7, 9)] { said += try f.line(try WorkoutLines.status(time: t, step: 4, left: left)) }
        #expect(said == ["10 seconds, get ready."])
        // Step 13 is 10 minutes easy: 30 s left.
        #expect(try f.line(try WorkoutLines.status(time: 8, step: 13, left: 29.5)) == ["30 seconds left."])
        var zh = Feed(language: .chinese)
        let z = try zh.line(try WorkoutLines.status(time: 1, step: 3, left: 199))
        #expect(z == ["还剩两百米。"], "\(z)")
        // Found already past half the mark (a reconnect): nothing.
        var g = Feed()
        #expect(try g.line(try WorkoutLines.status(time: 1, step: 3, left: 60)).isEmpty)
    }
}
