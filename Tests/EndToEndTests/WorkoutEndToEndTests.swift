import Foundation
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import Testing

/// Workouts through the real CLI and daemon: the library (the text form, a
/// refusal that stores nothing, a FIT file larger than a line, list, show,
/// start, remove), and a session killed mid-step that resumes in the step.
@Suite("Workouts end to end", .serialized)
struct WorkoutEndToEndTests {
    @Test("workout add|list|show|remove and start --workout, through the CLI and the daemon")
    func library() throws {
        let rig = try Rig("workout")
        let d = try SocketDaemon(rig)
        func cli(_ args: String...) throws -> (status: Int32, out: String, err: String) { try d.cli(args) }

        let added = try cli("workout", "add", "--name", "Tuesday",
                            "--text", "15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy")
        #expect(added.status == 0 && added.out.contains("added workout #1"), "\(added)")
        #expect(added.out.contains("2/14 interval (1 of 6): 800 m @ 3:50 min/km-4:00 min/km"), "\(added.out)")

        let bad = rig.dir.appendingPathComponent("notes.txt")
        try Data("hello, not a workout".utf8).write(to: bad)
        let refused = try cli("workout", "add", bad.path)
        #expect(refused.status == 1 && refused.err.contains("bad_workout") && refused.err.contains("nothing was stored"),
                "\(refused)")

        let list = try ReplyEncoder.decode(WorkoutsReply.self, from: try cli("workout", "list", "--json").out)
        #expect(list.workouts.map(\.name) == ["Tuesday"] && list.workouts.first?.steps == 14)
        #expect(try cli("workout", "show", "1").out.contains("14/14 cooldown: 00:10:00"))

        let start = try cli("start", "--workout", "1", "--json")
        #expect(start.status == 0, "\(start.err)")
        let status = try ReplyEncoder.decode(StatusReply.self, from: start.out)
        #expect(status.workout?.step.index == 0 && status.workout?.steps == 14, "\(start.out)")
        #expect(try cli("stop").status == 0)

        #expect(try cli("workout", "remove", "1").out.contains("removed workout #1"))
        #expect(try ReplyEncoder.decode(WorkoutsReply.self, from: try cli("workout", "list", "--json").out).workouts.isEmpty)
        #expect(try cli("start", "--workout", "1").status == 1, "a removed workout cannot be started")
    }

    @Test("a FIT workout of over 20 KB is added by the CLI in pieces under the default line limit, as a course file")
    func largeFIT() throws {
        let rig = try Rig("workoutfit")
        let d = try SocketDaemon(rig)
        let note = String(repeating: "Relax the shoulders, quick feet. ", count: 4)
        let workout = Workout(name: "Long", items: (0..<130).map {
            .step(WorkoutStep(duration: .time(60), intensity: $0 % 2 == 0 ? .active : .recovery,
                              name: "Step \($0 + 1) of 130", notes: note))
        })
        let fit = FITWorkoutWriter.file(workout)
        #expect(fit.count > 20_000, "\(fit.count) bytes")
        let file = rig.dir.appendingPathComponent("long.fit")
        try fit.write(to: file)
        let added = try d.cli(["workout", "add", file.path, "--json"])
        #expect(added.status == 0, "\(added.err)")
        let stored = try ReplyEncoder.decode(WorkoutReply.self, from: added.out).workout
        #expect(stored.steps == 130 && stored.format == "fit" && stored.name == "Long", "\(stored)")
        let shown = try d.cli(["workout", "show", String(stored.id)])
        #expect(shown.out.contains("130/130 Step 130 of 130: 00:01:00"), "\(shown.out.suffix(300))")
    }

    @Test("kill -9 during a step, restart: the session resumes in the same step with the step's time and distance kept")
    func killNineMidStep() async throws {
        let rig = try Rig("workoutkill9")
        // At 2x, as the session's kill -9 test: a commit a loaded machine takes 0.2 s to fsync is 0.4 s of engine time.
        let speed = 2.0, config = "store:\n  commit_interval_s: 2\n"
        try rig.startGPS(epochsPerSecond: speed)
        try rig.startDaemon(speed: speed, config: config)
        #expect(try rig.cli("workout", "add", "--text", "5km; 2min rest").status == 0)
        #expect(try rig.cli("start", "--activity", "walk", "--workout", "1").status == 0)
        let under = try rig.waitFor(timeout: 60, "the first step under way") {
            ($0.workout?.distanceM ?? 0) > 30 && ($0.workout?.elapsedS ?? 0) > 15
        }
        let id = try #require(under.session)
        let step = try #require(under.workout)
        // Two commit intervals more, so that the step's progress is on disk; the last STATUS before the kill.
        let last = try #require(try rig.waitFor(timeout: 20, "two commit intervals") {
            ($0.workout?.elapsedS ?? 0) >= step.elapsedS + 4
        }.workout)
        rig.daemon?.signal(SIGKILL)
        #expect(rig.daemon?.wait(timeout: 5) != nil)

        try rig.startDaemon(speed: speed, config: config)
        let resumed = try rig.waitFor(timeout: 30, "the session resumed with its workout") {
            $0.session == id && $0.state != .idle && $0.workout != nil
        }
        let w = try #require(resumed.workout)
        #expect(w.step.index == 0 && w.steps == 2, "the same step, not the next nor the first again: \(w)")
        // Kept as last committed (every 2 s, and at every event): at most a commit interval and a fix behind
        // the last STATUS before the kill, and not started over.
        #expect(w.elapsedS >= last.elapsedS - 3.5 && w.elapsedS <= last.elapsedS + 6, "\(w.elapsedS) s after \(last.elapsedS)")
        #expect(w.distanceM >= last.distanceM - 8 && w.distanceM <= last.distanceM + 10, "\(w.distanceM) m after \(last.distanceM)")
        // It carries on from there.
        let later = try #require(try rig.waitFor(timeout: 30, "the step going on") {
            ($0.workout?.distanceM ?? 0) > w.distanceM + 10
        }.workout)
        #expect(later.step.index == 0 && later.elapsedS > w.elapsedS)
        #expect(try rig.cli("stop").status == 0)
        let events = try rig.session(id).events
        #expect(events.filter { $0.event == "workout_step" }.count == 1, "the step did not begin again: \(events.map(\.event))")
        #expect(events.contains { $0.cause == "recovery" })
    }
}
