import Foundation
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerWeb
import Testing
@testable import MoonRunnerUpload

/// A daemon whose session 7 stops the moment its first `?SESSIONS` has been
/// answered: a watch open then gets the stop EVENT, one opened later does not
/// (the daemon sends a watcher only what happens after its `?WATCH`).
actor StoppingDaemon {
    private var stopped = false
    private var watching = false
    private var events: [String] = []
    private var idle: [CheckedContinuation<Void, Never>] = []
    private var isIdle = false

    func sessions() -> String {
        let state: SessionState = stopped ? .stopped : .recording
        let line = ReplyEncoder.line(SessionsReply(sessions: [SessionInfo(
            id: 7, activity: "run", state: state, startTime: 1_800_000_000, endTime: stopped ? 1_800_001_800 : nil,
            distanceM: 5000, elapsedS: 1800, movingS: 1700, steps: 5000, interrupted: false)]))
        if !stopped {
            stopped = true
            if watching {
                events.append(ReplyEncoder.line(EventReply(session: 7, event: SessionEvent(
                    kind: .stop, time: 1_800_001_800, detectedAt: 1_800_001_800, cause: "command", state: .stopped))))
            }
        }
        return line
    }

    func watch() { watching = true }
    func takeEvents() -> [String] {
        defer { events = [] }
        return events
    }

    /// The watch has sent all it will: the test may look.
    func quiet() {
        isIdle = true
        for c in idle { c.resume() }
        idle = []
    }

    func untilQuiet() async {
        if isIdle { return }
        await withCheckedContinuation { idle.append($0) }
    }

    static let status = ReplyEncoder.line(StatusReply(
        time: 1_800_000_100, state: .recording, session: 7, stats: SessionStats(),
        gps: GPSStatus(health: .ok, grade: .best, fixes: 10, connects: 1),
        imu: IMUStatus(health: .ok, samples: 100, rejected: 0, busErrors: 0, overflows: 0),
        store: StoreStatus(health: .ok, pending: 0, lastError: nil), lastTransition: nil, units: .metric, quiet: false))
}

/// The control socket of `StoppingDaemon`: `?SESSIONS` answered; a `?WATCH` answered with a
/// STATUS, then the EVENTs due, then held open until the task is cancelled.
struct StoppingLink: DaemonLink {
    let daemon: StoppingDaemon

    func converse(_ lines: [String], silence: Duration, receive: (String) async throws -> Bool) async throws {
        guard lines.first?.hasPrefix("?WATCH") == true else {
            _ = try await receive(await daemon.sessions())
            return
        }
        await daemon.watch()
        guard try await receive(StoppingDaemon.status) else { return }
        for e in await daemon.takeEvents() where try await !receive(e) { return }
        await daemon.quiet()
        let (open, held) = AsyncStream<Void>.makeStream()
        for await _ in open {}
        held.finish()
    }
}

actor StatesSeen {
    private(set) var states: [SessionState] = []
    func add(_ s: SessionState?) { if let s { states.append(s) } }
}

@Suite("Upload: the daemon's sessions read by the watch")
struct DaemonSourceTests {
    @Test("a session that stops while the watch connects is listed stopped: the list is read once the watch is in place")
    func stopWhileConnecting() async {
        let daemon = StoppingDaemon()
        let source = DaemonSource(link: StoppingLink(daemon: daemon))
        let seen = StatesSeen()
        let watch = Task {
            await source.watch { await seen.add(try? await source.sessions(limit: 5).first?.state) }
        }
        await daemon.untilQuiet()
        watch.cancel()
        // Listed before the ?WATCH, it was `recording`; its stop then reached no watch and nothing listed it again.
        #expect(await seen.states == [.recording, .stopped])
    }
}
