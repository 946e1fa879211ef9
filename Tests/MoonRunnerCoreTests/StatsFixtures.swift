import Foundation
@testable import MoonRunnerCore

/// Straight-line tracks with known answers for the statistics tests.
enum StatsTrack {
    static let t0 = 1_700_000_000.0
    static let lat0 = 45.0, lon0 = 7.0

    /// Due north at `speed` m/s, 1 Hz, from `from` to `to` seconds after t0,
    /// starting `offset` metres north of the origin, climbing `climb` m per m.
    static func line(from: Double, to: Double, speed: Double, offset: Double = 0, climb: Double = 0,
                     newSegmentAtStart: Bool = false) -> [TrackPoint] {
        var points: [TrackPoint] = []
        var t = from
        while t <= to + 1e-9 {
            let north = offset + (t - from) * speed
            points.append(point(t: t, north: north, altitude: 100 + north * climb, speed: speed,
                                newSegment: newSegmentAtStart && t == from))
            t += 1
        }
        return points
    }

    static func point(t: Double, north: Double, altitude: Double = 100, speed: Double = .nan,
                      newSegment: Bool = false) -> TrackPoint {
        // Metres north to degrees on the sphere Geodesy uses.
        let lat = lat0 + north / Geodesy.earthRadius * 180 / .pi
        return TrackPoint(time: t0 + t, fixTime: t0 + t, latitude: lat, longitude: lon0, altitude: altitude,
                          speed: speed, course: 0, eph: 5, newSegment: newSegment)
    }

    static func pause(_ from: Double, _ to: Double, automatic: Bool = true) -> PauseInterval {
        PauseInterval(start: t0 + from, end: t0 + to, detectedAt: t0 + from, automatic: automatic)
    }
}
