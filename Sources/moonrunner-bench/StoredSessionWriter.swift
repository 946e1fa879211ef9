import Foundation
import MoonRunnerCore
import MoonRunnerStore

/// A long recorded session written through the real store, as the daemon
/// writes one (a session row, then commit batches of points, step seconds
/// and events, the last one with the stopped snapshot), for the web app's
/// benchmark of a 10-hour session page. The run: laps of a 2 km park loop
/// at 2.6–3.4 m/s with 1 Hz points, a hill of ±15 m, cadence with the
/// speed, a 5-minute pause every 2 hours, a lap press every hour.
enum StoredSessionWriter {
    static let start = 1_714_548_600.0  // 2024-05-01T07:30:00Z

    static func write(directory: String, hours: Double) async throws -> (Int64, Int) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try SessionStore(directory: directory)
        let duration = hours * 3600
        var run = ParkLoopRun(start: start)
        let id = try await store.createSession(activity: .run, snapshot: run.recordingSnapshot)
        var batch = CommitBatch(sessionID: id, snapshot: run.recordingSnapshot)
        batch.events.append(SessionEvent(kind: .start, time: start, detectedAt: start, cause: "command", state: .recording))
        var written = 0
        var t = 0.0
        while t <= duration {
            defer { t += 1 }
            run.second(t, into: &batch)
            if batch.points.count == 3600 {
                written += batch.points.count
                try await store.commit(batch)
                batch = CommitBatch(sessionID: id, snapshot: batch.snapshot)
            }
        }
        batch.snapshot = run.stoppedSnapshot(duration: duration, points: written + batch.points.count)
        batch.events.append(SessionEvent(kind: .stop, time: start + duration, detectedAt: start + duration, cause: "command",
                                         state: .stopped))
        batch.endTime = start + duration
        written += batch.points.count
        try await store.commit(batch)
        await store.consolidate()
        return (id, written)
    }
}
