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
        let plane = LocalTangentPlane(originLat: 51.505, originLon: -0.16)
        let a = 420.0, b = 180.0
        var stats = SessionStats()
        stats.activity = .run
        stats.startTime = start
        let id = try await store.createSession(activity: .run, snapshot: SessionSnapshot(
            state: .recording, stats: stats, pauses: [], lastTime: start, utcOffset: 0))
        var angle = 0.0, distance = 0.0, steps = 0, maxSpeed = 0.0, gain = 0.0, loss = 0.0
        var lastAltitude = Double.nan
        var pauses: [PauseInterval] = []
        var batch = CommitBatch(sessionID: id, snapshot: SessionSnapshot(state: .recording, stats: stats, pauses: [],
                                                                         lastTime: start, utcOffset: 0))
        batch.events.append(SessionEvent(kind: .start, time: start, detectedAt: start, cause: "command", state: .recording))
        var written = 0
        var newStretch = false
        var t = 0.0
        while t <= duration {
            defer { t += 1 }
            // A 5-minute pause every two hours.
            let inPause = t.truncatingRemainder(dividingBy: 7200) >= 7000 && t.truncatingRemainder(dividingBy: 7200) < 7300
            if inPause {
                if !newStretch {
                    pauses.append(PauseInterval(start: start + t, end: start + t + 300, detectedAt: start + t,
                                                automatic: false))
                    batch.events.append(SessionEvent(kind: .pause, time: start + t, detectedAt: start + t, cause: "command",
                                                     state: .paused))
                    batch.events.append(SessionEvent(kind: .resume, time: start + t + 300, detectedAt: start + t + 300,
                                                     cause: "command", state: .recording))
                }
                newStretch = true
                continue
            }
            let speed = 3.0 + 0.4 * sin(2 * .pi * t / 600) + 0.1 * sin(2 * .pi * t / 37)
            if t > 0 && !newStretch {
                angle += speed / max(hypot(a * sin(angle), b * cos(angle)), 1)
                distance += speed
            }
            let (lat, lon) = plane.unproject(east: a * cos(angle), north: b * sin(angle))
            let altitude = 30 + 15 * sin(angle)
            if lastAltitude.isFinite {
                gain += max(0, altitude - lastAltitude)
                loss += max(0, lastAltitude - altitude)
            }
            lastAltitude = altitude
            maxSpeed = max(maxSpeed, speed)
            batch.points.append(TrackPoint(time: start + t, fixTime: start + t, latitude: lat, longitude: lon, altitude: altitude,
                                           speed: speed, course: .nan, eph: 5, newSegment: newStretch, distance: distance))
            newStretch = false
            let cadence = 160 + 10 * (speed - 3)
            let s = Int((cadence / 60).rounded())
            steps += s
            batch.stepSeconds.append(StepSecondSample(second: Int64(start + t), steps: s, cadence: cadence))
            if t > 0, t.truncatingRemainder(dividingBy: 3600) == 0 {
                batch.events.append(SessionEvent(kind: .lap, time: start + t, detectedAt: start + t, cause: "command",
                                                 state: .recording, detail: String(Int(t / 3600))))
            }
            if batch.points.count == 3600 {
                written += batch.points.count
                try await store.commit(batch)
                batch = CommitBatch(sessionID: id, snapshot: batch.snapshot)
            }
        }
        stats.elapsed = duration
        stats.moving = duration - Double(pauses.count) * 300
        stats.distance = distance
        stats.steps = steps
        stats.cadence = Double(steps) / stats.moving * 60
        stats.maxSpeed = maxSpeed
        stats.elevationGain = gain
        stats.elevationLoss = loss
        stats.laps = Int(duration / 3600)
        stats.points = written + batch.points.count
        batch.snapshot = SessionSnapshot(state: .stopped, stats: stats, pauses: pauses, lastTime: start + duration, utcOffset: 0)
        batch.events.append(SessionEvent(kind: .stop, time: start + duration, detectedAt: start + duration, cause: "command",
                                         state: .stopped))
        batch.endTime = start + duration
        written += batch.points.count
        try await store.commit(batch)
        await store.consolidate()
        return (id, written)
    }
}
