import Foundation
import GRDB
import MoonRunnerCore
import Testing
@testable import MoonRunnerStore

/// Cues in the store (migration v5-cues): a course's own points beside its
/// line, and the cue of each turn event.
@Suite("Store: cues")
struct CueStoreTests {
    @Test("a course's points come back as the file had them: kind, name (Unicode too), notes, FIT distance")
    func marks() async throws {
        let store = CourseStore(try SessionStore(directory: try tempStoreDir()))
        var course = CourseStoreTests.course("marked", points: 20)
        course.marks = [CourseMark(latitude: 47.0005, longitude: 8, kind: .sharpLeft, name: "榆树街", notes: "at the lights"),
                        CourseMark(latitude: 47.001, longitude: 8.0001, kind: .water, distance: 111.5)]
        let stored = try await store.add(course, format: "fit", sourceBytes: 10, at: 1)
        let (_, loaded) = try #require(try await store.load(id: stored.id))
        #expect(loaded.marks == course.marks)
        // A course stored without points of its own has none.
        let plain = try await store.add(CourseStoreTests.course("plain", points: 3), format: "gpx", sourceBytes: 1, at: 2)
        #expect(try await store.load(id: plain.id)?.1.marks == [])
    }

    @Test("a turn event keeps its cue, from the journal and from the database; other events have none")
    func eventCue() async throws {
        let store = try SessionStore(directory: try tempStoreDir())
        let id = try await store.createSession(activity: .run, snapshot: snapshot())
        var b = CommitBatch(sessionID: id, snapshot: snapshot(last: 1004))
        let cue = CueEvent(kind: .left, name: "Rue de l'Église", courseM: 1234.5, distanceM: 64.25, then: [.right])
        b.events = [SessionEvent(kind: .turnAhead, time: 1001, detectedAt: 1001, cause: "course", state: .recording,
                                 detail: "left", cue: cue),
                    SessionEvent(kind: .lap, time: 1002, detectedAt: 1002, cause: "command", state: .recording, detail: "1")]
        try await store.commit(b)
        for stage in ["journal", "database"] {
            if stage == "database" { await store.consolidate() }
            let events = try await store.events(session: id)
            #expect(events.map(\.cue) == [cue, nil], "\(stage)")
        }
    }
}
