import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

/// FIT workout files from an encoder that is not ours (PyPI fit-tool, through
/// Tests/Tools/make_workout_fit.py), and ours read back by Garmin's FIT SDK.
@Suite("Workout files")
struct WorkoutFileTests {
    static let generator = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Tools/make_workout_fit.py").standardizedFileURL.path

    /// Writes each plan (JSON text) with fit-tool and returns the files' bytes.
    static func fitTool(_ plans: [String]) throws -> [Data] {
        let dir = try makeScratchDirectory("workout")
        defer { try? FileManager.default.removeItem(at: dir) }
        var args = [generator]
        for (k, plan) in plans.enumerated() {
            let json = dir.appendingPathComponent("\(k).json")
            try Data(plan.utf8).write(to: json)
            args += [json.path, dir.appendingPathComponent("\(k).fit").path]
        }
        let r = try ExternalTool.run(ExternalTool.pythonInterpreter, args, hint: "pip install fit-tool")
        guard r.status == 0 else { throw ExternalTool.Failure("make_workout_fit.py failed: \(r.stderr.suffix(2000))") }
        return try plans.indices.map { try Data(contentsOf: dir.appendingPathComponent("\($0).fit")) }
    }

    static let tuesday = """
        {"name": "Tuesday intervals", "sport": "running", "notes": "the coach's plan", "steps": [
          {"name": "Warm up", "intensity": "warmup", "duration": {"time": 900}, "target": {"hr_zone": 2}},
          {"name": "Fast", "notes": "relaxed arms", "intensity": "interval", "duration": {"distance": 800},
           "target": {"speed": [4.167, 4.348]}},
          {"intensity": "rest", "duration": {"time": 90}},
          {"repeat_from": 1, "times": 6},
          {"intensity": "recovery", "duration": {"hr_below": 120}, "target": {"hr": [100, 130]}},
          {"intensity": "active", "duration": {"hr_above_pct": 85}, "target": {"cadence": [85, 90]}},
          {"intensity": "cooldown", "duration": {"open": true}, "target": {"hr_pct": [60, 70]}},
          {"intensity": "other", "duration": {"time": 60.5}}]}
        """

    @Test("a FIT workout written by fit-tool reads as its steps: durations, targets, intensities, names, notes, the repeat")
    func fitToolWorkout() throws {
        let data = try #require(try Self.fitTool([Self.tuesday]).first)
        let w = try WorkoutFile.read(data)
        #expect(w.name == "Tuesday intervals" && w.sport == .run && w.notes == "the coach's plan")
        #expect(w.items == [
            .step(WorkoutStep(duration: .time(900), target: .heartRateZone(2), intensity: .warmup, name: "Warm up")),
            .step(WorkoutStep(duration: .distance(800), target: .speed(low: 4.167, high: 4.348), intensity: .interval,
                              name: "Fast", notes: "relaxed arms")),
            .step(WorkoutStep(duration: .time(90), intensity: .rest)),
            .repeats(from: 1, times: 6),
            .step(WorkoutStep(duration: .heartRateBelow(.bpm(120)), target: .heartRate(low: .bpm(100), high: .bpm(130)),
                              intensity: .recovery)),
            // Cadence per foot in the file (85–90 strides/min) is 170–180 steps/min.
            .step(WorkoutStep(duration: .heartRateAbove(.percentOfMax(85)), target: .cadence(low: 170, high: 180))),
            .step(WorkoutStep(duration: .open, target: .heartRate(low: .percentOfMax(60), high: .percentOfMax(70)),
                              intensity: .cooldown)),
            .step(WorkoutStep(duration: .time(60.5))),
        ])
        #expect(try WorkoutPlan(w).steps.count == 17)
    }

    @Test("a file of another kind is refused with its file type, and so is a FIT file that is not a FIT file")
    func otherFiles() throws {
        let files = try Self.fitTool([#"{"file_type": "course", "steps": [{"duration": {"time": 60}}]}"#])
        #expect(throws: WorkoutFileError("not a workout file: file_id type course")) { try WorkoutFile.read(files[0]) }
        let activity = FITWriter.write(ExportFixture.session())
        #expect(throws: WorkoutFileError("not a workout file: file_id type activity")) {
            try WorkoutFile.read(activity, format: .fit)
        }
        var damaged = [UInt8](FITWorkoutWriter.file(try WorkoutText.parse("10min")))
        damaged[20] ^= 0x10
        do {
            _ = try WorkoutFile.read(Data(damaged))
            Issue.record("a damaged file was read")
        } catch {
            #expect(error.message.hasPrefix("FIT: the file's CRC is wrong"), "\(error.message)")
        }
        #expect(throws: WorkoutFileError("the file is empty")) { try WorkoutFile.read(Data()) }
    }

    @Test("a step MoonRunner cannot follow, or a repeat that points nowhere or at itself, is refused with its reason")
    func refusedSteps() throws {
        let cases: [(String, String)] = [
            (#"{"duration": {"calories": 200}}"#,
             "FIT: step 1: ends after a number of calories, which MoonRunner does not count as it goes"),
            (#"{"duration": {"power_above": 250}}"#, "FIT: step 1: ends at a power, and MoonRunner has no power meter"),
            (#"{"duration": {"time": 60}, "target": {"power_zone": 3}}"#,
             "FIT: step 1: a power target, and MoonRunner has no power meter"),
            (#"{"duration": {"time": 60}, "target": {"speed_zone": 2}}"#,
             "FIT: step 1: speed zone 2 (MoonRunner has no speed zones; give the pace as a range)"),
            (#"{"duration": {"hr_below": null}}"#, "FIT: step 1: a step that ends at a heart rate gives no heart rate"),
            (#"{"duration": {"time": 0}}"#, "FIT: step 1: a step of 0 s cannot be run"),
            (#"{"duration": {"time": 60}, "target": {"hr_zone": 7}}"#, "FIT: step 1: heart-rate zone 7 is not one of 1–5"),
            (#"{"duration": {"time": 60}, "target": {"speed": [4.4, 4.1]}}"#,
             "FIT: step 1: the pace range is inverted (slow end faster than fast end)"),
            (#"{"repeat_from": 3, "times": 2}"#, "FIT: step 2: the repeat points nowhere (to step 4 of 2)"),
            (#"{"repeat_from": 1, "times": 2}"#, "FIT: step 2: the repeat points at itself"),
        ]
        let plans = cases.map { #"{"steps": [{"duration": {"time": 60}}, "# + $0.0 + "]}" }
        // The refusals name the step as the file numbers it: the case under test is the second.
        let files = try Self.fitTool(plans)
        for ((_, reason), file) in zip(cases, files) {
            let expected = reason.replacingOccurrences(of: "step 1:", with: "step 2:")
            #expect(throws: WorkoutFileError(expected)) { try WorkoutFile.read(file) }
        }
    }

    static let decodeScript = """
        import json, sys
        from garmin_fit_sdk import Decoder, Stream
        d = Decoder(Stream.from_file(sys.argv[1]))
        ok = d.check_integrity()
        messages, errors = Decoder(Stream.from_file(sys.argv[1])).read()
        def plain(m):
            return {k: (v if isinstance(v, (int, float, str)) or v is None else str(v)) for k, v in m.items()}
        print(json.dumps({"integrity": ok, "errors": [str(e) for e in errors],
                          "type": str(messages["file_id_mesgs"][0]["type"]),
                          "workout": plain(messages["workout_mesgs"][0]),
                          "steps": [plain(s) for s in messages["workout_step_mesgs"]]}))
        """

    static let sample = Workout(name: "Hills & strides", sport: .run, items: [
        .step(WorkoutStep(duration: .time(600), target: .heartRate(low: .bpm(120), high: .bpm(140)), intensity: .warmup,
                          name: "Easy")),
        .step(WorkoutStep(duration: .distance(400), target: .speed(low: 4.25, high: 4.5), intensity: .interval,
                          notes: "up the hill")),
        .step(WorkoutStep(duration: .heartRateBelow(.percentOfMax(70)), intensity: .recovery)),
        .repeats(from: 1, times: 5),
        .step(WorkoutStep(duration: .open, target: .cadence(low: 176, high: 184), intensity: .cooldown)),
        .step(WorkoutStep(duration: .heartRateAbove(.bpm(150)), target: .heartRateZone(3))),
    ], notes: "Tuesday")

    @Test("the writer's workout file decodes in Garmin's FIT SDK with its steps, and reads back as the same workout")
    func writerRoundTrip() throws {
        let data = FITWorkoutWriter.file(Self.sample, created: 1_764_000_000)
        #expect(try WorkoutFile.read(data) == Self.sample)

        let dir = try makeScratchDirectory("workout-sdk")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("w.fit")
        try data.write(to: file)
        let r = try ExternalTool.python(Self.decodeScript, [file.path])
        #expect(r["integrity"] as? Bool == true && (r["errors"] as? [Any])?.isEmpty == true, "\(r)")
        #expect(r["type"] as? String == "workout")
        let w = try #require(r["workout"] as? [String: Any])
        #expect(w["wkt_name"] as? String == "Hills & strides" && w["sport"] as? String == "running")
        #expect(w["num_valid_steps"] as? Int == 6 && w["wkt_description"] as? String == "Tuesday")
        let s = try #require(r["steps"] as? [[String: Any]])
        #expect(s.map { $0["duration_type"] as? String } == ["time", "distance", "hr_less_than",
                                                             "repeat_until_steps_cmplt", "open", "hr_greater_than"])
        #expect(s.map { $0["intensity"] as? String } == ["warmup", "interval", "recovery", nil, "cooldown", "active"])
        #expect(s[0]["duration_time"] as? Double == 600 && s[0]["wkt_step_name"] as? String == "Easy")
        #expect(s[0]["custom_target_heart_rate_low"] as? Int == 220 && s[0]["custom_target_heart_rate_high"] as? Int == 240)
        #expect(s[1]["duration_distance"] as? Double == 400 && s[1]["notes"] as? String == "up the hill")
        #expect(s[1]["custom_target_speed_low"] as? Double == 4.25 && s[1]["custom_target_speed_high"] as? Double == 4.5)
        #expect(s[2]["duration_hr"] as? Int == 70)
        #expect(s[3]["duration_step"] as? Int == 1 && s[3]["repeat_steps"] as? Int == 5)
        #expect(s[4]["custom_target_cadence_low"] as? Int == 88 && s[4]["custom_target_cadence_high"] as? Int == 92)
        #expect(s[5]["duration_hr"] as? Int == 250 && s[5]["target_hr_zone"] as? Int == 3)
    }

    @Test("the text form from a file or a request: named as asked, refused with its line and column")
    func textForm() throws {
        let w = try WorkoutFile.read(Data("15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy\n".utf8), name: " Tuesday ")
        #expect(w.name == "Tuesday" && w.items.count == 5)
        #expect(try WorkoutFile.read(Data("10min".utf8)).name == "workout")
        #expect(throws: WorkoutFileError("line 1, column 4: \"yd\" is not a unit of time or distance")) {
            try WorkoutFile.read(Data("10 yd".utf8))
        }
        #expect(throws: WorkoutFileError("neither a FIT workout nor text (the file is not UTF-8)")) {
            try WorkoutFile.read(Data([0xFF, 0xFE, 0x00, 0x31]))
        }
    }
}
