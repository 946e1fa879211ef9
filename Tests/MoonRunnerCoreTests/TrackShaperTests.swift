import Foundation
import Testing
@testable import MoonRunnerCore

/// The written track: its length is the distance counted, its shape the filter's.
@Suite("Track shaper")
struct TrackShaperTests {
    static let plane = LocalTangentPlane(originLat: 51.5, originLon: -0.15)

    static func point(_ t: Double, east: Double, north: Double, speed: Double = 3, course: Double = 90,
                      newSegment: Bool = false) -> TrackPoint {
        let (lat, lon) = plane.unproject(east: east, north: north)
        return TrackPoint(time: t, fixTime: t, latitude: lat, longitude: lon, altitude: 30, speed: speed,
                          course: course, eph: 8, newSegment: newSegment)
    }

    /// Metres between two points in the shaper's own (WGS-84 local) metric.
    static func step(_ a: TrackPoint, _ b: TrackPoint) -> Double {
        let pa = plane.project(lat: a.latitude, lon: a.longitude), pb = plane.project(lat: b.latitude, lon: b.longitude)
        return hypot(pb.east - pa.east, pb.north - pa.north)
    }

    /// Length per segment (as gpxpy measures a GPX).
    static func length(_ points: [TrackPoint]) -> Double {
        var sum = 0.0
        for (a, b) in zip(points, points.dropFirst()) where !b.newSegment { sum += step(a, b) }
        return sum
    }

    /// Feeds `points` (filter output) with the distance each added; returns what is written.
    static func run(_ shaper: inout TrackShaper, _ points: [(TrackPoint, Double, Bool)], total: inout Double) -> [TrackPoint] {
        var out: [TrackPoint] = []
        for (p, added, recording) in points {
            if recording { total += added }
            let (a, b) = shaper.place(p, added: recording ? added : 0, total: total, recording: recording)
            if let a { out.append(a) }
            if let b { out.append(b) }
        }
        return out
    }

    @Test("jittery positions: the written path is as long as the distance and stays on the route")
    func lengthEqualsDistance() {
        var rng = SystemRandomNumberGenerator()
        var shaper = TrackShaper()
        shaper.resume(at: 0, segmentBreak: true)
        var inputs: [(TrackPoint, Double, Bool)] = []
        for i in 0...600 {
            // East at 3 m/s with ±2.5 m of sideways and along-track jitter.
            let jitter = { Double.random(in: -2.5...2.5, using: &rng) }
            inputs.append((Self.point(Double(i), east: 3 * Double(i) + jitter(), north: jitter(),
                                      newSegment: i == 0), i == 0 ? 0 : 3, true))
        }
        var total = 0.0
        let out = Self.run(&shaper, inputs, total: &total)
        let raw = Self.length(inputs.map(\.0))
        let written = Self.length(out)
        #expect(raw > total * 1.2, "the jitter makes the raw path longer (\(raw) vs \(total))")
        #expect(abs(written - total) < 1e-6 * total, "written \(written) m, counted \(total) m")
        #expect(out.last.map { abs($0.distance - total) < 1e-9 } == true)
        for p in out {
            let (_, n) = Self.plane.project(lat: p.latitude, lon: p.longitude)
            #expect(abs(n) < 3, "\(n) m off the route")
        }
    }

    @Test("standing and converging write nothing; the first point is where the filter stood last")
    func convergenceIsNotTrack() {
        var shaper = TrackShaper()
        shaper.resume(at: 0, segmentBreak: true)
        // The first fix is 100 m off; the filter's anchor converges while standing.
        var inputs: [(TrackPoint, Double, Bool)] = [(Self.point(0, east: 100, north: 0, speed: 0, newSegment: true), 0, true)]
        for i in 1...10 {
            inputs.append((Self.point(Double(i), east: 100 / Double(i * i), north: 0, speed: 0), 0, true))
        }
        for i in 11...30 {
            inputs.append((Self.point(Double(i), east: 3 * Double(i - 10), north: 0), 3, true))
        }
        var total = 0.0
        let out = Self.run(&shaper, inputs, total: &total)
        #expect(out.count == 21)
        let first = Self.plane.project(lat: out[0].latitude, lon: out[0].longitude)
        #expect(abs(first.east - 1) < 0.01, "starts where the anchor settled, not 100 m off: \(first)")
        #expect(out[0].newSegment)
        #expect(out[0].distance == 0)
        #expect(abs(Self.length(out) - total) < 1e-6 * total + 1e-6)
    }

    @Test("a pause keeps the track where it stopped; a GPS break of the filter moves it")
    func pausesAndBreaks() throws {
        var shaper = TrackShaper()
        shaper.resume(at: 0, segmentBreak: true)
        var total = 0.0
        var walk: [(TrackPoint, Double, Bool)] = []
        for i in 0...10 {
            walk.append((Self.point(Double(i), east: 3 * Double(i), north: 0, newSegment: i == 0), i == 0 ? 0 : 3, true))
        }
        var out = Self.run(&shaper, walk, total: &total)
        let stopped = try #require(out.last)
        // Auto-paused: the filter's points are not recorded; the wearer drifts 4 m.
        var paused: [(TrackPoint, Double, Bool)] = []
        for i in 11...20 { paused.append((Self.point(Double(i), east: 34, north: 0, speed: 0), 0, false)) }
        out += Self.run(&shaper, paused, total: &total)
        #expect(out.count == 11)
        shaper.resume(at: 20.5, segmentBreak: false)
        var again: [(TrackPoint, Double, Bool)] = []
        for i in 21...25 { again.append((Self.point(Double(i), east: 34 + 3 * Double(i - 20), north: 0), 3, true)) }
        out += Self.run(&shaper, again, total: &total)
        let opened = out[11]
        #expect(opened.newSegment)
        #expect(opened.latitude == stopped.latitude && opened.longitude == stopped.longitude,
                "the stretch resumes where the track stopped")
        #expect(opened.time == 20.5)
        // Joined or apart, the length is the distance.
        var joined = 0.0
        for (a, b) in zip(out, out.dropFirst()) { joined += Self.step(a, b) }
        #expect(abs(joined - total) < 1e-6 * total)
        #expect(abs(Self.length(out) - total) < 1e-6 * total)

        // The filter starts a new segment on its own (an exit far from a tunnel's entry).
        out += Self.run(&shaper, [(Self.point(26, east: 500, north: 200, newSegment: true), 0, true),
                                  (Self.point(27, east: 503, north: 200), 3, true)], total: &total)
        let moved = Self.plane.project(lat: out[out.count - 2].latitude, lon: out[out.count - 2].longitude)
        #expect(abs(moved.east - 500) < 0.01 && abs(moved.north - 200) < 0.01)
        #expect(out[out.count - 2].newSegment)
    }
}
