import Testing
@testable import MoonRunnerCore

@Suite("Workout: the text form")
struct WorkoutTextTests {
    static func steps(_ text: String) throws -> [WorkoutStep] {
        try WorkoutText.parse(text).items.compactMap(\.step)
    }

    static func pace(_ fast: Double, _ slow: Double) -> StepTarget { .speed(low: 1000 / slow, high: 1000 / fast) }

    @Test("the example: 15m is 15 minutes, 800m is 800 metres; easy is a warm-up before the intervals and a cool-down after")
    func example() throws {
        let w = try WorkoutText.parse("15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy")
        #expect(w.items == [
            .step(WorkoutStep(duration: .time(900), intensity: .warmup)),
            .step(WorkoutStep(duration: .distance(800), target: Self.pace(230, 240), intensity: .interval)),
            .step(WorkoutStep(duration: .time(90), intensity: .rest)),
            .repeats(from: 1, times: 6),
            .step(WorkoutStep(duration: .time(600), intensity: .cooldown)),
        ])
        #expect(try WorkoutPlan(w).steps.count == 14)
    }

    @Test("m alone is minutes below 100 and metres from 100 up; min and mtr say it outright; times add up by parts",
          arguments: [
              ("99m", StepDuration.time(99 * 60)), ("100m", .distance(100)), ("60mtr", .distance(60)),
              ("120min", .time(7200)), ("1h30m", .time(5400)), ("2m30s", .time(150)), ("1m 30s", .time(90)),
              ("45sec", .time(45)), ("1.5km", .distance(1500)), ("2mi", .distance(3218.688)), ("400 m", .distance(400)),
              ("0.5h", .time(1800)), ("lap", .open), ("hr<130", .heartRateBelow(.bpm(130))),
              ("hr > 85%", .heartRateAbove(.percentOfMax(85))), ("HR<120BPM", .heartRateBelow(.bpm(120))),
              ("hr<125 rest", .heartRateBelow(.bpm(125))),
          ])
    func durations(text: String, duration: StepDuration) throws {
        #expect(try Self.steps(text).first?.duration == duration)
    }

    @Test("targets: a pace range either way round, a single pace ±5 s/km (±8 s/mi), bpm, % of the maximum, a zone, spm, km/h",
          arguments: [
              ("1km @4:00-3:50/km", pace(230, 240)), ("1km @4:00/km", pace(235, 245)),
              ("1km @6:30/mi", StepTarget.speed(low: 1609.344 / 398, high: 1609.344 / 382)),
              ("10min @140-150bpm", .heartRate(low: .bpm(140), high: .bpm(150))),
              ("10min @150bpm", .heartRate(low: .bpm(145), high: .bpm(155))),
              ("10min @70-80%", .heartRate(low: .percentOfMax(70), high: .percentOfMax(80))),
              ("10min @Z2", .heartRateZone(2)), ("10min @z5", .heartRateZone(5)),
              ("10min @170-180spm", .cadence(low: 170, high: 180)),
              ("10min @27-30km/h", .speed(low: 7.5, high: 30 / 3.6)),
          ])
    func targets(text: String, target: StepTarget) throws {
        #expect(try Self.steps(text).first?.target == target)
    }

    @Test("intensity words and names: jog is a recovery, hard an interval, cd a cool-down; a name in quotes")
    func words() throws {
        let s = try Self.steps("10min wu; 3x(1km hard \"Fast K\"; 2min jog), 5min cd, lap active")
        #expect(s.map(\.intensity) == [.warmup, .interval, .recovery, .cooldown, .active])
        #expect(s[1].name == "Fast K")
        #expect(try Self.steps("45min easy @Z2").map(\.intensity) == [.active])
    }

    @Test("a step without a word is an interval inside a repeat and active outside; easy between efforts or in a repeat is a recovery")
    func defaults() throws {
        let s = try Self.steps("10min easy; 20min @4:30/km; 5min easy; 4x(1km, 400m easy); 10min easy")
        #expect(s.map(\.intensity) == [.warmup, .active, .recovery, .interval, .recovery, .cooldown])
    }

    @Test("separators: semicolons, commas and new lines, at either level, with spaces anywhere")
    func separators() throws {
        let s = try Self.steps("  10min easy ;\n 2 x ( 1km ,\n 2min rest ) ;\n\n 10min easy\n")
        #expect(s.count == 4)
        #expect(try WorkoutText.parse("3×(1km, 1min rest)").items.count == 3)
    }

    @Test("repeats nest two deep, not three")
    func nesting() throws {
        let w = try WorkoutText.parse("2x(3x(200m, 200m jog), 3min rest)")
        #expect(w.items.count == 5)
        #expect(throws: WorkoutTextError(line: 1, column: 7, "repeats nest at most 2 deep")) {
            try WorkoutText.parse("2x(2x(2x(200m), 1min rest))")
        }
    }

    @Test("mistakes are refused with the line, the column and what was expected there", arguments: [
        ("", "line 1, column 1: expected a step (e.g. 15min easy) but the text is empty"),
        ("15m easy 800m", "line 1, column 10: expected a target (@…), an intensity word (easy, rest, …) or a name (\"…\"), found \"800m\""),
        ("@4:00/km", "line 1, column 1: expected a step: a time (90s, 15min), a distance (800m, 5km), lap or hr<130, found \"@\""),
        ("10 easy", "line 1, column 4: \"easy\" is not a unit of time or distance"),
        ("1km @4:0/km", "line 1, column 8: expected two digits of seconds (00–59)"),
        ("1km @4:00", "line 1, column 10: expected /km or /mi after the pace, found the end of the text"),
        ("1km @4:00/yd", "line 1, column 11: expected km or mi after \"/\""),
        ("10min @Z7", "line 1, column 1: step 1: heart-rate zone 7 is not one of 1–5"),
        ("10min @140", "line 1, column 11: expected bpm, %, spm or km/h after the number"),
        ("hr<130 yd", "line 1, column 8: expected a target (@…), an intensity word (easy, rest, …) or a name (\"…\"), found \"yd\""),
        ("6x(800m, 90s rest", "line 1, column 18: expected \")\" to close the repeat, or \";\" before the next step, found the end of the text"),
        ("6x 800m", "line 1, column 4: expected \"(\" after 6x, found \"800m\""),
        ("10min)", "line 1, column 6: a \")\" without its \"(\""),
        ("10min rest rest", "line 1, column 12: a step has one intensity word"),
        ("10min\n2x(1km @4:00/km @Z2)", "line 2, column 17: a step has one target"),
        ("0x(1km)", "line 1, column 1: a repeat of 0 rounds (1 to 100)"),
        ("10min \"warm", "line 1, column 7: the name has no closing quote"),
        ("30s10m", "line 1, column 6: the parts of a time go hours, minutes, seconds"),
        ("0s", "line 1, column 1: step 1: a step of 0 s cannot be run"),
    ])
    func errors(text: String, message: String) {
        do {
            _ = try WorkoutText.parse(text)
            Issue.record("\(text) was read")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("the text of a workout reads back as the same workout")
    func roundTrip() throws {
        for text in ["15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy",
                     "20min @Z2 \"Easy aerobic\"; 2x(3x(200m @3:20/km, 200m jog), 3min rest); lap cd",
                     "hr>160bpm @170-180spm; hr<120bpm rest; 1h15min @140-150bpm; 5km @75-85% wu; 2mi; 60mtr"] {
            let w = try WorkoutText.parse(text)
            let again = try WorkoutText.parse(WorkoutText.format(w))
            #expect(again == w, "\(WorkoutText.format(w))")
        }
        let ride = try WorkoutText.parse("1h @27-30km/h", sport: .ride)
        #expect(WorkoutText.format(ride) == "1h @27-30km/h active")
        #expect(WorkoutText.format(try WorkoutText.parse("15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy"))
                == "15min warmup; 6x(800m @3:50-4:00/km interval, 90s rest); 10min cooldown")
    }
}
