import Foundation
import MoonRunnerCore
@testable import MoonRunnerExport

/// A synthetic run built in code: laps of an oval park loop (about 1.9 km
/// round, with a 15 m hill), speed varying like intervals, a two-minute
/// pause in the middle, two lap presses, 1 Hz fixes with a little
/// deterministic GPS noise, and per-second steps.
enum ExportFixture {
    static let start = 1_714_548_600.0   // 2024-05-01T07:30:00Z

    struct Shape {
        var duration = 2400.0
        var pauseStart = 1200.0
        var pauseLength = 120.0
        var laps: [Double] = [600, 1500]
        var activity = Activity.run
        /// Metres of GPS jitter left on accepted (filtered) points.
        var noise = 0.3
    }

    static func session(_ shape: Shape = Shape(), id: Int64 = 12) -> ExportSession {
        let centreLat = 51.5050, centreLon = -0.1600
        let plane = LocalTangentPlane(originLat: centreLat, originLon: centreLon)
        let a = 420.0, b = 180.0  // semi-axes of the oval, metres

        var rng = SplitMix(seed: 42)
        var points: [TrackPoint] = []
        var stepSeconds: [StepSecondSample] = []
        var angle = 0.0
        var stepCarry = 0.0
        var totalSteps = 0
        var maxSpeed = 0.0
        let pauseEnd = shape.pauseStart + shape.pauseLength
        var t = 0.0
        var afterPause = false
        while t <= shape.duration {
            defer { t += 1 }
            if t > shape.pauseStart && t < pauseEnd {
                afterPause = true
                continue
            }
            let speed = 3.0 + 0.6 * sin(2 * .pi * t / 300) + 0.15 * sin(2 * .pi * t / 47)
            // Advance along the ellipse by arc length speed × 1 s.
            let ds = hypot(a * sin(angle), b * cos(angle))
            if t > 0 && !(afterPause && t == pauseEnd) { angle += speed / max(ds, 1) }
            let east = a * cos(angle) + shape.noise * rng.gaussian()
            let north = b * sin(angle) + shape.noise * rng.gaussian()
            let (lat, lon) = plane.unproject(east: east, north: north)
            let altitude = 30 + 15 * sin(angle) + 0.3 * rng.gaussian()
            points.append(TrackPoint(time: start + t, fixTime: start + t, latitude: lat, longitude: lon,
                                     altitude: altitude, speed: speed, course: .nan, eph: 6,
                                     newSegment: afterPause && t == pauseEnd))
            maxSpeed = max(maxSpeed, speed)
            let cadence = 160 + 10 * (speed - 3)
            stepCarry += cadence / 60
            let steps = Int(stepCarry)
            stepCarry -= Double(steps)
            if steps > 0 && t < shape.duration {
                stepSeconds.append(StepSecondSample(second: Int64(start + t), steps: steps, cadence: cadence))
                totalSteps += steps
            }
        }

        let pauses = [PauseInterval(start: start + shape.pauseStart, end: start + pauseEnd,
                                    detectedAt: start + shape.pauseStart + 8, automatic: true)]
        var events = [SessionEvent(kind: .start, time: start, detectedAt: start, cause: "command",
                                   state: .recording, detail: shape.activity.rawValue)]
        events.append(SessionEvent(kind: .autopause, time: start + shape.pauseStart,
                                   detectedAt: start + shape.pauseStart + 8, cause: "no_motion", state: .autoPaused))
        events.append(SessionEvent(kind: .autoresume, time: start + pauseEnd, detectedAt: start + pauseEnd,
                                   cause: "steps", state: .recording))
        for (k, lap) in shape.laps.enumerated() {
            events.append(SessionEvent(kind: .lap, time: start + lap, detectedAt: start + lap, cause: "command",
                                       state: .recording, detail: String(k + 1)))
        }
        events.append(SessionEvent(kind: .stop, time: start + shape.duration, detectedAt: start + shape.duration,
                                   cause: "command", state: .stopped))
        events.sort { $0.time < $1.time }

        var stats = SessionStats()
        stats.activity = shape.activity
        stats.startTime = start
        stats.elapsed = shape.duration
        stats.moving = shape.duration - shape.pauseLength
        stats.distance = TrackDistance(points: points).total
        stats.steps = totalSteps
        stats.maxSpeed = maxSpeed
        stats.elevationGain = 30 * stats.distance / (2 * 1_900)
        stats.elevationLoss = stats.elevationGain
        stats.laps = shape.laps.count
        stats.points = points.count

        return ExportSession(id: id, activity: shape.activity, startTime: start, stats: stats, points: points,
                             events: events, pauses: pauses, stepSeconds: stepSeconds,
                             calorieModel: CalorieModel(bodyMass: 70))
    }

    /// A 10-hour 1 Hz session (36 001 points) for the speed checks.
    static func tenHours() -> ExportSession {
        var shape = Shape()
        shape.duration = 36_000
        shape.pauseStart = 18_000
        shape.pauseLength = 600
        shape.laps = stride(from: 3600.0, to: 36_000, by: 3600).map { $0 }
        return session(shape, id: 99)
    }
}

/// Small deterministic random numbers (SplitMix64) for reproducible noise.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
