import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerStore

/// Workouts in the store (migration v6-workouts): the library, and the step of each workout event.
@Suite("Store: workouts")
struct WorkoutStoreTests {
    @Test("a workout comes back as it was stored, names and notes too; removing it leaves no row")
    func library() async throws {
        let store = WorkoutStore(try SessionStore(directory: try tempStoreDir()))
        var workout = try WorkoutText.parse(#"10min easy "Warm up"; 4x(400m @4:00/km "fast", 200m easy)"#, name: "Laps")
        workout.notes = "track, lane 1"
        let stored = try await store.add(workout, format: "text", sourceBytes: 40, steps: 9, at: 5)
        #expect(try await store.workout(id: stored.id)?.workout == workout)
        #expect(try await store.workouts().map(\.id) == [stored.id])
        #expect(try await store.delete(id: stored.id))
        #expect(try await store.workouts().isEmpty)
    }

    @Test("a workout event keeps its step, from the journal and from the database; other events have none")
    func eventStep() async throws {
        let store = try SessionStore(directory: try tempStoreDir())
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        var b = CommitBatch(sessionID: id, snapshot: snapshot(last: 1004))
        let plan = try WorkoutPlan(WorkoutText.parse("2x(800m @3:50-4:00/km, 90s rest)"))
        let info = WorkoutEventInfo(step: plan.steps[2], steps: 4, measure: .pace, value: 4.05)
        b.events = [SessionEvent(kind: .targetLow, time: 1001, detectedAt: 1001, cause: "pace", state: .recording,
                                 workout: info),
                    SessionEvent(kind: .lap, time: 1002, detectedAt: 1002, cause: "command", state: .recording, detail: "1")]
        try await store.commit(b)
        for stage in ["journal", "database"] {
            if stage == "database" { await store.consolidate() }
            let events = try await store.events(session: id)
            #expect(events.map(\.workout) == [info, nil], "\(stage)")
        }
    }
}
