import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

@Suite("Privacy zones: the ends of a track left out of what is shared")
struct PrivacyTrimTests {
    /// The fixture's oval starts at its eastern tip (420 m east of its centre), which every lap
    /// passes, and ends part-way round: one zone at home (the tip), one where the run ended.
    static let session = ExportFixture.session()
    static let tip = LocalTangentPlane(originLat: 51.5050, originLon: -0.1600).unproject(east: 420, north: 0)
    static let home = PrivacyZone(latitude: tip.lat, longitude: tip.lon, radiusM: 150)
    static let end = session.points.last.map { PrivacyZone(latitude: $0.latitude, longitude: $0.longitude, radiusM: 150) }
    static let zones = [home] + (end.map { [$0] } ?? [])

    @Test("a track whose ends touch no zone is written byte for byte as without zones")
    func untouched() throws {
        let far = PrivacyZone(latitude: 48.85, longitude: 2.35, radiusM: 500)
        let same = try #require(Self.session.leavingOut([far]))
        #expect(FITWriter.write(same) == FITWriter.write(Self.session))
        #expect(try #require(Self.session.leavingOut([])).points == Self.session.points)
    }

    @Test("the points of the start and of the end inside a zone are left out; those in the middle stay")
    func ends() throws {
        let trimmed = try #require(Self.session.leavingOut(Self.zones))
        let inside = { (p: TrackPoint) in Self.zones.hide(latitude: p.latitude, longitude: p.longitude) }
        let kept = (try #require(trimmed.points.first), try #require(trimmed.points.last))
        let all = (try #require(Self.session.points.first), try #require(Self.session.points.last))
        #expect(!inside(kept.0) && !inside(kept.1))
        #expect(inside(all.0) && inside(all.1))
        // Each lap of the oval passes through the zone: those passes are kept (a gap would point at the place too).
        #expect(trimmed.points.filter(inside).count > 10, "laps through the zone are kept")
        #expect(trimmed.points.count < Self.session.points.count)
    }

    @Test("the file's totals are those of the points sent: distance from 0, time from the first point to the last")
    func totals() throws {
        let trimmed = try #require(Self.session.leavingOut(Self.zones))
        let first = try #require(trimmed.points.first), last = try #require(trimmed.points.last)
        #expect(trimmed.startTime == first.time && trimmed.endTime == last.time)
        #expect(trimmed.elapsed == last.time - first.time)
        #expect(abs(trimmed.distance - TrackDistance(points: trimmed.points).total) < 1e-9)
        #expect(trimmed.distance < Self.session.distance - 100, "at least the zone's radius each end")
        let steps = Self.session.stepSeconds.filter { Double($0.second) >= first.time && Double($0.second) <= last.time }
        #expect(trimmed.totalSteps == steps.reduce(0) { $0 + $1.steps })
        #expect(trimmed.moving < Self.session.moving && trimmed.moving > 0)
    }

    @Test("the FIT sent is the exporter's file for the trimmed track, and reads back with its points")
    func file() throws {
        let trimmed = try #require(Self.session.leavingOut(Self.zones))
        let data = FITWriter.write(trimmed)
        #expect(data == FITWriter.write(trimmed), "the same bytes each time")
        #expect(data != FITWriter.write(Self.session))
    }

    @Test("Garmin's FIT SDK reads the trimmed file with the points and totals of what is sent")
    func fitReadBack() throws {
        let trimmed = try #require(Self.session.leavingOut(Self.zones))
        let dir = try makeScratchDirectory("privacy-fit")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("s.fit")
        try FITWriter.write(trimmed).write(to: file)
        let r = try ExternalTool.python(FITExportTests.decodeScript, [file.path])
        #expect(r["integrity"] as? Bool == true)
        #expect(r["records"] as? Int == trimmed.points.count)
        #expect(relativeError(r["total_distance"] as? Double ?? 0, trimmed.distance) < 0.001)
        #expect(abs((r["total_elapsed_time"] as? Double ?? 0) - trimmed.elapsed) < 0.01)
        #expect(r["session_start"] as? Double == trimmed.startTime - 631_065_600)
        let first = try #require(r["first_record"] as? [String: Any])
        let lat = Double(first["position_lat"] as? Int ?? 0) * 180 / 2_147_483_648
        let lon = Double(first["position_long"] as? Int ?? 0) * 180 / 2_147_483_648
        #expect(!Self.zones.hide(latitude: lat, longitude: lon), "the first record lies outside the zones")
    }

    @Test("the GPX sent holds the trimmed points only, none of the ends inside a zone")
    func gpx() throws {
        let trimmed = try #require(Self.session.leavingOut(Self.zones))
        let text = String(decoding: GPXWriter.write(trimmed), as: UTF8.self)
        let points = text.components(separatedBy: "<trkpt lat=\"").dropFirst().compactMap { chunk -> (Double, Double)? in
            let lat = chunk.prefix { $0 != "\"" }
            guard let lonStart = chunk.range(of: "lon=\"") else { return nil }
            let lon = chunk[lonStart.upperBound...].prefix { $0 != "\"" }
            return Double(lat).flatMap { la in Double(lon).map { (la, $0) } }
        }
        #expect(points.count == trimmed.points.count)
        let ends = try #require(points.first.flatMap { f in points.last.map { (f, $0) } })
        #expect(!Self.zones.hide(latitude: ends.0.0, longitude: ends.0.1))
        #expect(!Self.zones.hide(latitude: ends.1.0, longitude: ends.1.1))
    }

    @Test("a track wholly inside the zones leaves nothing to export")
    func wholly() {
        let everything = PrivacyZone(latitude: 51.5050, longitude: -0.1600, radiusM: 2000)
        #expect(Self.session.leavingOut([everything]) == nil)
    }

    @Test("zones are 100–2000 m circles with a centre on the globe")
    func zones() {
        #expect(PrivacyZone(latitude: 51.5, longitude: -0.12, radiusM: 100).isValid)
        #expect(!PrivacyZone(latitude: 51.5, longitude: -0.12, radiusM: 99).isValid)
        #expect(!PrivacyZone(latitude: 51.5, longitude: -0.12, radiusM: 2001).isValid)
        #expect(!PrivacyZone(latitude: 91, longitude: 0, radiusM: 300).isValid)
    }
}
