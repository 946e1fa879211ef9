import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

extension FITBuilder {
    /// A `course_point` (global 32): lat, lon, distance (cm), type, name.
    mutating func coursePoint(lat: Double, lon: Double, distance: Double?, type: UInt8, name: String) {
        let bytes = Array(name.utf8) + [0]
        let local: UInt8 = 3
        var r: [UInt8] = [0x40 | local, 0, 0, 32, 0, 5]
        r += [2, 4, 0x85, 3, 4, 0x85, 4, 4, 0x86, 5, 1, 0x00, 6, UInt8(bytes.count), 0x07]
        r.append(local)
        func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
        r += le32(UInt32(bitPattern: Int32((lat * 2_147_483_648 / 180).rounded())))
        r += le32(UInt32(bitPattern: Int32((lon * 2_147_483_648 / 180).rounded())))
        r += le32(distance.map { UInt32(($0 * 100).rounded()) } ?? 0xFFFF_FFFF)
        r.append(type)
        r += bytes
        records += r
    }
}

/// A course file's own points: every one read, of its kind, with
/// its name, in all three formats.
@Suite("Course files: their own points")
struct CoursePointFileTests {
    /// A 1 km street north from (47, 8) and its four points: a left onto a
    /// street with a Unicode name, a sharp right, water, and a café 80 m off it.
    static let points: [(lat: Double, lon: Double, kind: CueKind, name: String)] = [
        (47.002, 8.0, .left, "Rue de l'Église"), (47.004, 8.0, .sharpRight, "榆树街"),
        (47.006, 8.0, .water, "Brunnen"), (47.008, 8.00105, .food, "Café Ré"),
    ]

    static var gpx: String {
        var s = CourseFileTests.gpxHead
        for p in points {
            s += "<wpt lat=\"\(p.lat)\" lon=\"\(p.lon)\"><name>\(p.name.replacingOccurrences(of: "'", with: "&apos;"))</name>"
            s += "<sym>\(p.kind == .food ? "Restaurant" : p.kind.tcxName)</sym><type>\(p.kind == .food ? "Food" : "")</type></wpt>"
        }
        s += "<trk><name>Street</name><trkseg>"
        for k in 0...10 { s += "<trkpt lat=\"\(47 + Double(k) * 0.0009)\" lon=\"8.0\"/>" }
        return s + "</trkseg></trk></gpx>"
    }

    static var tcx: String {
        var s = """
            <?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <Courses><Course><Name>Street</Name><Track>
            """
        for k in 0...10 {
            s += "<Trackpoint><Position><LatitudeDegrees>\(47 + Double(k) * 0.0009)</LatitudeDegrees>"
            s += "<LongitudeDegrees>8.0</LongitudeDegrees></Position></Trackpoint>"
        }
        s += "</Track>"
        for p in points {
            s += "<CoursePoint><Name>\(p.name.replacingOccurrences(of: "'", with: "&apos;"))</Name><Position>"
            s += "<LatitudeDegrees>\(p.lat)</LatitudeDegrees><LongitudeDegrees>\(p.lon)</LongitudeDegrees></Position>"
            s += "<PointType>\(p.kind.tcxName)</PointType><Notes>note \(p.kind.rawValue)</Notes></CoursePoint>"
        }
        return s + "</Course></Courses></TrainingCenterDatabase>"
    }

    static var fit: Data {
        var b = FITBuilder()
        b.fileID(type: 6)
        b.courseName("Street")
        b.defineRecord()
        for k in 0...10 { b.record(lat: 47 + Double(k) * 0.0009, lon: 8.0) }
        for p in points {
            b.coursePoint(lat: p.lat, lon: p.lon, distance: nil, type: p.kind.fitType, name: p.name)
        }
        return b.data
    }

    @Test("GPX waypoints, TCX CoursePoints and FIT course_points: every point, of its kind, with its name")
    func everyPoint() throws {
        let courses = [try CourseFile.read(Data(Self.gpx.utf8)), try CourseFile.read(Data(Self.tcx.utf8)),
                       try CourseFile.read(Self.fit)]
        for (format, c) in zip(["GPX", "TCX", "FIT"], courses) {
            #expect(c.marks.map(\.kind) == Self.points.map(\.kind), "\(format)")
            #expect(c.marks.map(\.name) == Self.points.map(\.name), "\(format)")
            #expect(zip(c.marks, Self.points).allSatisfy { abs($0.latitude - $1.lat) < 1e-6 && abs($0.longitude - $1.lon) < 1e-6 },
                    "\(format)")
        }
        #expect(courses[1].marks.map(\.notes) == Self.points.map { "note \($0.kind.rawValue)" })
    }

    @Test("placed on the course: at their projection, in order; the café 80 m off is kept as an off-course point of interest")
    func placed() throws {
        for data in [Data(Self.gpx.utf8), Data(Self.tcx.utf8), Self.fit] {
            let followed = try FollowedCourse(id: nil, course: try CourseFile.read(data))
            let cues = followed.cues
            #expect(cues.map(\.kind) == Self.points.map(\.kind))
            // 0.002° of latitude is 222.4 m.
            for (c, m) in zip(cues.prefix(3), [222.4, 444.8, 667.2]) { #expect(abs(c.courseM - m) < 1, "\(c.courseM)") }
            #expect(cues[3].offCourse && abs(cues[3].offsetM - 80) < 1)
            #expect(cues.prefix(3).allSatisfy { !$0.offCourse && !$0.found })
        }
    }

    @Test("a GPX route's points name the turns when their type or symbol says one (a cue sheet); untyped route points are the course only")
    func routeCues() throws {
        let c = try CourseFile.read(Data((CourseFileTests.gpxHead + """
            <rte><name>r</name><rtept lat="47" lon="8"/><rtept lat="47.001" lon="8"><name>Left onto Elm</name><type>Turn Left</type></rtept>
            <rtept lat="47.001" lon="8.001"><sym>Slight Right</sym></rtept><rtept lat="47.002" lon="8.001"><type>Danger</type></rtept></rte></gpx>
            """).utf8))
        #expect(c.points.count == 4)
        #expect(c.marks.map(\.kind) == [.left, .slightRight, .danger])
        #expect(c.marks.first?.name == "Left onto Elm")
    }

    @Test("a session that followed a course keeps the course's own points: GPX waypoints and FIT course_points read back as they were; TCX activities cannot carry them")
    func exportsKeepThem() throws {
        var session = ExportFixture.session()
        let first = try #require(session.points.first)
        session.coursePoints = [
            CourseCue(kind: .sharpLeft, name: "Rue de l'Église & Co", notes: "at the lights", courseM: 120.5,
                      latitude: first.latitude + 0.001, longitude: first.longitude),
            CourseCue(kind: .water, name: "榆树街的喷泉很长的名字也会被截短吗", courseM: 480, latitude: first.latitude,
                      longitude: first.longitude + 0.001),
        ]
        let gpx = try CourseFile.read(GPXWriter.write(session), format: .gpx)
        #expect(gpx.marks.map(\.kind) == [.sharpLeft, .water])
        #expect(gpx.marks.map(\.name) == session.coursePoints.map(\.name))
        #expect(gpx.marks.first?.notes == "at the lights")
        let fit = try CourseFile.read(FITWriter.write(session), format: .fit)
        #expect(fit.marks.map(\.kind) == [.sharpLeft, .water])
        #expect(fit.marks.first?.name == "Rue de l'Église & Co" && fit.marks.first?.distance == 120.5)
        // 32 bytes with the NUL: the long name is cut at a character, never inside one.
        let cut = try #require(fit.marks.last?.name)
        #expect(cut.utf8.count <= 31 && session.coursePoints[1].name?.hasPrefix(cut) == true, "\(cut)")
        for (m, c) in zip(fit.marks, session.coursePoints) {
            #expect(abs(m.latitude - c.latitude) < 1e-6 && abs(m.longitude - c.longitude) < 1e-6)
        }
        #expect(try CourseFile.read(TCXWriter.write(session), format: .tcx).marks.isEmpty)
        // A session without them exports as before.
        #expect(!String(decoding: GPXWriter.write(ExportFixture.session()), as: UTF8.self).contains("<wpt"))
    }

    @Test("the files' words for each kind read back as that kind", arguments: CueKind.allCases)
    func words(kind: CueKind) {
        #expect(CueKind(tcx: kind.tcxName) == kind)
        #expect(CueKind(gpx: kind.tcxName) == kind)
        #expect(CueKind(fit: kind.fitType) == kind)
    }
}
