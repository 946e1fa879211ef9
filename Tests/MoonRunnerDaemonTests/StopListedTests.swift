import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore
import Synchronization
import Testing
@testable import MoonRunnerDaemon

/// What a watcher that lists the sessions at a stop EVENT (the upload
/// service) finds: the session stopped, also while its last batch is still
/// being written, and also right after the daemon restarted.
@Suite("Session service: a stopped session is listed stopped from its stop EVENT on")
struct StopListedTests {
    /// Lists the sessions, from another task, as each stop EVENT reaches the watcher; the states found.
    final class ListAtStop: Sendable {
        private let asked = Mutex<[Task<String, Never>]>([])

        func watch(_ service: SessionService, _ archive: SessionArchive) {
            service.watchers.add(1) { line in
                guard ReplyEncoder.replyClass(of: line) == "EVENT",
                      let e = try? ReplyEncoder.decode(EventReply.self, from: line), e.event == "stop",
                      let sid = e.session else { return }
                let task = Task {
                    let listed = try? await archive.sessions(limit: 5, before: nil).sessions.first { $0.id == sid }
                    return listed?.state.rawValue ?? "missing"
                }
                self.asked.withLock { $0.append(task) }
            }
        }

        func states() async -> [String] {
            var out: [String] = []
            for t in asked.withLock({ $0 }) { out.append(await t.value) }
            return out
        }
    }

    static func record(_ service: SessionService, seconds: Int) async throws {
        let t0 = try await service.start(.run, course: nil, destination: nil).time
        for k in 0..<seconds {
            await service.ingest(fix: SessionServiceTests.fix(t0 + Double(k), metres: Double(k) * 3), at: t0 + Double(k))
        }
    }

    @Test("?SESSIONS asked as the stop EVENT arrives lists the session stopped, five sessions out of five")
    func listedStopped() async throws {
        let (service, store) = try SessionServiceTests.service()
        let watcher = ListAtStop()
        watcher.watch(service, SessionServiceTests.archive(service, store))
        for _ in 0..<5 {
            try await Self.record(service, seconds: 30)
            _ = try await service.run(.stop)
        }
        // Before, the last batch's write let the session go first: its stored row said `recording`.
        #expect(await watcher.states() == Array(repeating: "stopped", count: 5))
    }

    @Test("a session resumed after a restart and stopped at once is listed stopped as its EVENT arrives")
    func afterRestart() async throws {
        let (first, store) = try SessionServiceTests.service()
        try await Self.record(first, seconds: 30)
        await first.shutdown()
        let restarted = SessionService(config: DaemonConfig(stateDir: store), store: store, clock: EngineClock(),
                                       logger: Logger(label: "test"))
        await restarted.recover()
        let watcher = ListAtStop()
        watcher.watch(restarted, SessionServiceTests.archive(restarted, store))
        _ = try await restarted.run(.stop)
        #expect(await watcher.states() == ["stopped"])
    }
}
