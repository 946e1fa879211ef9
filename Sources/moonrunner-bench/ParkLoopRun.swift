import Foundation
import MoonRunnerCore
import MoonRunnerStore

/// The run `StoredSessionWriter` records, one second at a time: where the
/// runner is on the loop and the totals so far.
struct ParkLoopRun {
    let start: Double
    private let plane = LocalTangentPlane(originLat: 51.505, originLon: -0.16)
    /// The loop's half-axes, metres: an ellipse of about 2 km.
    private let a = 420.0, b = 180.0
    private var stats = SessionStats()
    private var angle = 0.0, distance = 0.0, steps = 0, maxSpeed = 0.0, gain = 0.0, loss = 0.0
    private var lastAltitude = Double.nan
    private var pauses: [PauseInterval] = []
    /// The next point starts a new stretch (after a pause).
    private var newStretch = false

    init(start: Double) {
        self.start = start
        stats.activity = .run
        stats.startTime = start
    }

    var recordingSnapshot: SessionSnapshot {
        SessionSnapshot(state: .recording, stats: stats, pauses: [], lastTime: start, utcOffset: 0)
    }

    /// Second `t` of the run: a point, its steps and a lap press on the hour,
    /// or nothing but the pause's events while paused.
    mutating func second(_ t: Double, into batch: inout CommitBatch) {
        // A 5-minute pause every two hours.
        let inPause = t.truncatingRemainder(dividingBy: 7200) >= 7000 && t.truncatingRemainder(dividingBy: 7200) < 7300
        if inPause {
            if !newStretch { pause(at: t, into: &batch) }
            newStretch = true
            return
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
    }

    private mutating func pause(at t: Double, into batch: inout CommitBatch) {
        pauses.append(PauseInterval(start: start + t, end: start + t + 300, detectedAt: start + t, automatic: false))
        batch.events.append(SessionEvent(kind: .pause, time: start + t, detectedAt: start + t, cause: "command",
                                         state: .paused))
        batch.events.append(SessionEvent(kind: .resume, time: start + t + 300, detectedAt: start + t + 300,
                                         cause: "command", state: .recording))
    }

    /// The session's totals once it stops after `duration` seconds with `points` points.
    mutating func stoppedSnapshot(duration: Double, points: Int) -> SessionSnapshot {
        stats.elapsed = duration
        stats.moving = duration - Double(pauses.count) * 300
        stats.distance = distance
        stats.steps = steps
        stats.cadence = Double(steps) / stats.moving * 60
        stats.maxSpeed = maxSpeed
        stats.elevationGain = gain
        stats.elevationLoss = loss
        stats.laps = Int(duration / 3600)
        stats.points = points
        return SessionSnapshot(state: .stopped, stats: stats, pauses: pauses, lastTime: start + duration, utcOffset: 0)
    }
}
