import MoonRunnerCore
import Testing
@testable import MoonRunnerStore

/// Commits held in the journal until the database takes them in, as reads see them.
@Suite("Held commits")
struct HeldCommitsTests {
    static func batch(_ id: Int64, last: Double, end: Double? = nil, seconds: [StepSecondSample] = []) -> CommitBatch {
        var b = CommitBatch(sessionID: id, snapshot: snapshot(state: end == nil ? .recording : .stopped, last: last))
        b.endTime = end
        b.stepSeconds = seconds
        return b
    }

    @Test("a session's commits merge into one held batch, unless a consolidation is writing it")
    func hold() {
        var held = HeldCommits()
        held.hold(Self.batch(1, last: 1001))
        held.hold(Self.batch(1, last: 1002))
        #expect(held.batches.count == 1 && held.batches[0].snapshot.lastTime == 1002)
        held.inFlight = 1
        held.hold(Self.batch(1, last: 1003))
        #expect(held.batches.map(\.snapshot.lastTime) == [1002, 1003])
        held.hold(Self.batch(2, last: 1004))
        #expect(held.batches.map(\.sessionID) == [1, 1, 2])
        #expect(held.batches(of: 1).count == 2 && Set(held.sessionIDs) == [1, 2])
    }

    @Test("a session row reads as its latest held batch leaves it: snapshot, state, last update and end")
    func overlaid() {
        var held = HeldCommits()
        held.inFlight = 1  // keep the two batches apart
        held.hold(Self.batch(1, last: 1010, end: 1010))
        held.hold(Self.batch(1, last: 1012))
        let row = StoredSession(id: 1, activity: .run, state: .recording, startTime: 1000, endTime: nil, updatedAt: 1000,
                                interrupted: false, snapshot: snapshot(last: 1000))
        let other = StoredSession(id: 2, activity: .walk, state: .stopped, startTime: 900, endTime: 950, updatedAt: 950,
                                  interrupted: false, snapshot: snapshot(state: .stopped, last: 950))
        let read = held.overlaid([row, other])
        #expect(read[0].updatedAt == 1012 && read[0].state == .recording)
        #expect(read[0].endTime == 1010, "an end told once is kept by later batches that say none")
        #expect(read[1] == other)
    }

    @Test("held step seconds follow the database's, a second split between them added up as the database does")
    func stepSeconds() {
        var held = HeldCommits()
        held.hold(Self.batch(1, last: 1002, seconds: [StepSecondSample(second: 1001, steps: 1, cadence: 150),
                                                      StepSecondSample(second: 1002, steps: 2, cadence: 155)]))
        let stored = [StepSecondSample(second: 1000, steps: 2, cadence: 140), StepSecondSample(second: 1001, steps: 1, cadence: 145)]
        #expect(held.stepSeconds(of: 1, after: stored) == [StepSecondSample(second: 1000, steps: 2, cadence: 140),
                                                           StepSecondSample(second: 1001, steps: 2, cadence: 150),
                                                           StepSecondSample(second: 1002, steps: 2, cadence: 155)])
        #expect(held.stepSeconds(of: 2, after: stored) == stored)
    }
}
