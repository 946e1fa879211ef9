import Foundation
import MoonRunnerCore
import MoonRunnerExport

/// A finished run as the daemon exports it, for the suites that send files to
/// real servers: `seconds` 1 Hz points going north-east from a start in
/// Hyde Park at 3 m/s, each point's cumulative distance set as the engine
/// sets it, written by the package's own FIT and GPX writers. `start`
/// differs per test so that the servers see different activities.
struct RunFile {
    let session: ExportSession

    init(id: Int64, start: Double, seconds: Int = 600) {
        let plane = LocalTangentPlane(originLat: 51.5073, originLon: -0.1657)
        var points: [TrackPoint] = []
        for i in 0...seconds {
            let along = 3.0 * Double(i)
            let (lat, lon) = plane.unproject(east: along * 0.8, north: along * 0.6)
            points.append(TrackPoint(time: start + Double(i), fixTime: start + Double(i), latitude: lat, longitude: lon,
                                     altitude: 30 + 5 * sin(Double(i) / 60), speed: 3, course: 53, eph: 5,
                                     newSegment: i == 0, distance: along))
        }
        var stats = SessionStats()
        stats.activity = .run
        stats.startTime = start
        stats.elapsed = Double(seconds)
        stats.moving = Double(seconds)
        stats.distance = TrackDistance(points: points).total
        stats.maxSpeed = 3
        stats.points = points.count
        let events = [SessionEvent(kind: .start, time: start, detectedAt: start, cause: "command", state: .recording, detail: "run"),
                      SessionEvent(kind: .stop, time: start + Double(seconds), detectedAt: start + Double(seconds),
                                   cause: "command", state: .stopped)]
        session = ExportSession(id: id, activity: .run, startTime: start, stats: stats, points: points, events: events,
                                calorieModel: CalorieModel(bodyMass: 70))
    }

    var fit: Data { FITWriter.write(session) }
    var gpx: Data { GPXWriter.write(session) }
    var distance: Double { session.distance }
    var points: Int { session.points.count }
}
