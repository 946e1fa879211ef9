import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore
import Testing
@testable import MoonRunnerDaemon

/// The workout requests as a connection sends them, through the router to the library and the service.
@Suite("Session service: workouts (real store, no sockets)")
struct WorkoutServiceTests {
    typealias Rig = RequestRouterTests.Rig

    /// Uploads `file` as the CLI does (`?WORKOUT_ADD`, then its `?WORKOUT_DATA` pieces): the last reply.
    static func add(_ rig: inout Rig, _ file: Data, format: String? = nil, name: String? = nil) async throws -> String {
        var last = ""
        for line in FileUpload.lines(for: file, kind: .workout, name: name, format: format) {
            #expect(line.utf8.count < 4096, "each line under the default socket.max_line_bytes")
            last = try #require(try await rig.send(line).first)
        }
        return last
    }

    static func add(_ rig: inout Rig, _ text: String, name: String? = nil) async throws -> String {
        try await add(&rig, Data(text.utf8), name: name)
    }

    static func count(_ rig: inout Rig) async throws -> Int {
        try ReplyEncoder.decode(WorkoutsReply.self, from: await rig.reply(.workouts)).workouts.count
    }

    @Test("the text form and a FIT workout file are stored, listed, shown with their steps as run, and removed")
    func library() async throws {
        var rig = try Rig()
        let text = "15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy"
        let added = try ReplyEncoder.decode(WorkoutReply.self, from: await Self.add(&rig, text, name: "Tuesday")).workout
        #expect(added.name == "Tuesday" && added.format == "text" && added.steps == 14)
        #expect(added.plan?.map(\.index) == Array(0..<14))
        // The text form written back says each intensity outright, and reads back as the same workout.
        #expect(added.text == "15min warmup; 6x(800m @3:50-4:00/km interval, 90s rest); 10min cooldown")
        let fit = FITWorkoutWriter.file(try WorkoutText.parse("2x(1km @4:00-4:10/km, 2min easy)", name: "Kms"))
        let second = try ReplyEncoder.decode(WorkoutReply.self, from: await Self.add(&rig, fit)).workout
        #expect(second.name == "Kms" && second.format == "fit" && second.steps == 4)
        let list = try ReplyEncoder.decode(WorkoutsReply.self, from: await rig.reply(.workouts))
        #expect(list.workouts.map(\.id) == [second.id, added.id], "newest first")
        #expect(list.workouts.allSatisfy { $0.plan == nil }, "the list leaves the plans out")
        let shown = try ReplyEncoder.decode(WorkoutReply.self, from: await rig.reply(.workout(id: added.id)))
        #expect(shown.workout == added)
        let removed = try await rig.reply(.workoutDelete(id: added.id))
        #expect(try ReplyEncoder.decode(WorkoutDeletedReply.self, from: removed).workout == added.id)
        let again = try await rig.reply(.workoutDelete(id: added.id))
        #expect(try ReplyEncoder.decode(ErrorReply.self, from: again).code == .notFound)
        #expect(try await Self.count(&rig) == 1)
    }

    @Test("a text with a mistake, bytes that are no workout and a zone the profile cannot give are refused with the reason; nothing is stored",
          arguments: [
              (Data("15m easy; 6x(800m @3:50-4:00/km, 90s rest".utf8), nil),
              (Data([0x0E, 0x10, 1, 2, 3, 4, 5, 6]), nil),
              (Data([0xFF, 0xFE, 0x00]), "text"),
              (Data("10min @z7".utf8), nil),
          ] as [(Data, String?)])
    func refused(file: Data, format: String?) async throws {
        var rig = try Rig()
        let error = try ReplyEncoder.decode(ErrorReply.self, from: await Self.add(&rig, file, format: format))
        #expect(error.code == .badWorkout)
        #expect(error.message.hasSuffix("nothing was stored"), "\(error.message)")
        #expect(try await Self.count(&rig) == 0)
    }

    @Test("a 20 KB FIT workout arrives in pieces of one line each, as a course file; a course piece cannot feed it, and a workout too large is refused before any piece")
    func chunked() async throws {
        var rig = try Rig()
        let fit = FITWorkoutWriter.file(Self.longWorkout(steps: 130))
        #expect(fit.count > 20_000, "\(fit.count) bytes")
        let lines = FileUpload.lines(for: fit, kind: .workout, name: nil, format: nil)
        #expect(lines.count == 1 + (fit.count + 2045) / 2046 && lines.allSatisfy { $0.utf8.count < 4096 })
        let opened = try ReplyEncoder.decode(UploadReply.self, from: try #require(try await rig.send(lines[0]).first))
        #expect(opened.cls == "WORKOUT_UPLOAD" && opened.bytes == fit.count && opened.chunks == lines.count - 1)
        // A piece of the other kind does not feed this upload.
        let wrong = try await rig.error(Request(command: .courseData(seq: 0, data: "AAAA")))
        #expect(wrong.code == .invalidState && wrong.message.hasPrefix("no course upload in progress"), "\(wrong.message)")
        var last = ""
        for line in lines.dropFirst() { last = try #require(try await rig.send(line).first) }
        let stored = try ReplyEncoder.decode(WorkoutReply.self, from: last).workout
        #expect(stored.format == "fit" && stored.steps == 130 && stored.name == "Long")
        let big = UploadHeader(kind: .workout, name: nil, format: nil, encoding: "base64",
                               bytes: UploadKind.workoutMaxBytes + 1, chunks: 200)
        #expect(try await rig.error(Request(command: .workoutAdd(big))).code == .tooLarge)
    }

    /// A workout of `steps` one-minute steps, each with a name and a long note (FIT carries both).
    static func longWorkout(steps: Int) -> Workout {
        let note = String(repeating: "Relax the shoulders, quick feet. ", count: 4)
        return Workout(name: "Long", items: (0..<steps).map {
            .step(WorkoutStep(duration: .time(60), intensity: $0 % 2 == 0 ? .active : .recovery,
                              name: "Step \($0 + 1) of \(steps)", notes: note))
        })
    }

    @Test("start --workout runs the stored workout: its first step at the start, the next where the distance is reached; an unknown one is not_found")
    func start() async throws {
        var rig = try Rig()
        let missing = try await rig.reply(.start(activity: "run", workout: 9))
        #expect(try ReplyEncoder.decode(ErrorReply.self, from: missing).code == .notFound)
        let w = try ReplyEncoder.decode(WorkoutReply.self, from: await Self.add(&rig, "300m; 60s rest")).workout
        _ = try await rig.reply(.watch(enable: true))
        let started = try ReplyEncoder.decode(StatusReply.self, from: await rig.reply(.start(activity: "run", workout: w.id)))
        for k in 0..<200 {
            let t = started.time + Double(k)
            await rig.service.ingest(fix: SessionServiceTests.fix(t, metres: Double(k) * 3), at: t)
            if k == 120 {
                // 300 m at 3 m/s end near 100 s: STATUS shows the rest and what is left of it.
                let live = try ReplyEncoder.decode(StatusReply.self, from: await rig.reply(.status))
                let w = try #require(live.workout)
                #expect(w.step.index == 1 && w.step.intensity == .rest && w.steps == 2)
                #expect(abs((w.remaining ?? 0) + w.elapsedS - 60) < 1e-6 && w.elapsedS > 10 && w.elapsedS < 30, "\(w)")
            }
        }
        let after = try ReplyEncoder.decode(StatusReply.self, from: await rig.reply(.status))
        #expect(after.workout == nil, "no progress after the workout's end")
        let events = rig.sink.received.compactMap { try? ReplyEncoder.decode(EventReply.self, from: $0) }
        let steps = events.filter { $0.event == "workout_step" }
        #expect(steps.map(\.workout?.step.index) == [0, 1])
        #expect(steps.map(\.cause) == ["start", "distance"])
        #expect(events.contains { $0.event == "workout_done" })
        _ = try await rig.reply(.stop)
        await rig.service.shutdown()
    }

    @Test("a restart of the daemon mid-step resumes the workout in the same step with its time and distance kept")
    func restart() async throws {
        var rig = try Rig()
        let w = try ReplyEncoder.decode(WorkoutReply.self, from: await Self.add(&rig, "500m; 60s rest; 500m")).workout
        let started = try ReplyEncoder.decode(StatusReply.self, from: await rig.reply(.start(activity: "run", workout: w.id)))
        let t0 = started.time
        for k in 0..<120 {
            await rig.service.ingest(fix: SessionServiceTests.fix(t0 + Double(k), metres: Double(k) * 3), at: t0 + Double(k))
        }
        let before = try #require(await rig.service.status().workout)
        #expect(before.step.index == 0 && before.distanceM > 300 && before.distanceM < 400, "\(before)")
        await rig.service.shutdown()

        // A new service on the same store, as after kill -9: the open session is resumed from its last commit.
        let restarted = SessionService(config: DaemonConfig(stateDir: rig.store), store: rig.store,
                                       clock: EngineClock(), logger: Logger(label: "test"))
        await restarted.recover()
        let after = try #require(await restarted.status().workout)
        #expect(after.step.index == 0)
        // Kept as last committed (every 2 s, and at every event): within a few metres of where it was.
        #expect(abs(after.distanceM - before.distanceM) < 10 && abs(after.elapsedS - before.elapsedS) < 3, "\(after)")
        let sink = WatcherSink()
        restarted.watchers.add(1, sink: { sink.receive($0) })
        for k in 120..<260 {
            await restarted.ingest(fix: SessionServiceTests.fix(t0 + Double(k), metres: Double(k) * 3), at: t0 + Double(k))
        }
        let steps = sink.received.compactMap { try? ReplyEncoder.decode(EventReply.self, from: $0) }
            .filter { $0.event == "workout_step" }
        #expect(steps.first?.workout?.step.index == 1, "the first 500 m ends after the restart, not again from 0")
        _ = try await restarted.run(.stop)
        await restarted.shutdown()
    }
}
