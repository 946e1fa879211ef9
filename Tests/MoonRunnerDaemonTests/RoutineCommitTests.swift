import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore
import Testing
@testable import MoonRunnerDaemon

/// A routine commit is handed to the journal's queue and its outcome taken
/// at the next input (`CommitMailbox`): the rows must still reach the disk
/// at once, a failure must still keep them, and a stop must find them all.
@Suite("Session service: routine commits taken at the next input")
struct RoutineCommitTests {
    /// Records `seconds` fixes, each followed by a pause long enough for the journal's queue.
    static func record(_ service: SessionService, seconds: Int) async throws -> Int64 {
        let status = try await service.start(.run, course: nil, destination: nil)
        let id = try #require(status.session)
        for k in 0..<seconds {
            let t = status.time + Double(k)
            await service.ingest(fix: SessionServiceTests.fix(t, metres: Double(k) * 3), at: t)
            try await Task.sleep(for: .milliseconds(20))
        }
        return id
    }

    @Test("each routine commit is on disk while recording, and a stop finds every point stored")
    func reachDisk() async throws {
        let (service, store) = try SessionServiceTests.service { $0.commitInterval = 0 }
        let id = try await Self.record(service, seconds: 40)
        let live = await service.status()
        // Were the outcomes not taken, no commit after the first would begin.
        let recorded = try await store.pointCount(session: id)
        #expect(live.store.health == .ok)
        _ = try await service.run(.stop)
        let stored = try await store.pointCount(session: id)
        #expect(stored >= 30)
        // Only the last second or two were still to be written when the stop came.
        #expect(recorded >= stored - 3)
        #expect(await service.status().store.pending == 0)
    }

    @Test("a routine commit the store refuses keeps its rows: STATUS says so, and nothing is dropped")
    func refusedKeepsRows() async throws {
        var config = DaemonConfig()
        config.stateDir = NSTemporaryDirectory() + "mr-routine-\(UUID().uuidString.prefix(8))"
        config.commitInterval = 0
        let writer = try SessionStore(directory: config.stateDir)
        // A second store beside the writer cannot append to the journal: every commit fails.
        let store = try SessionStore(directory: config.stateDir)
        let service = SessionService(config: config, store: store, clock: EngineClock(), logger: Logger(label: "test"))
        _ = try await Self.record(service, seconds: 20)
        // Waits for the routine commit in flight: its refused rows are pending again.
        await service.commitsSettled()
        let live = await service.status()
        #expect(live.store.health == .error)
        #expect(live.store.pending >= 18, "\(live.store)")
        #expect(live.store.lastError?.isEmpty == false)
        _ = writer
    }
}
