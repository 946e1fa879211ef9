import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

/// A FIT file built byte by byte, for the reader's tests: definitions in
/// either byte order, optional developer fields, compressed-timestamp headers.
struct FITBuilder {
    var records: [UInt8] = []

    mutating func fileID(type: UInt8) {
        define(local: 0, global: 0, fields: [(0, 1, 0x00)])
        records += [0x00, type]
    }

    mutating func courseName(_ name: String) {
        let bytes = Array(name.utf8) + [0]
        define(local: 1, global: 31, fields: [(5, UInt8(bytes.count), 0x07)])
        records += [0x01] + bytes
    }

    /// Defines local type 2 as `record` with lat, lon, altitude (and a timestamp).
    mutating func defineRecord(bigEndian: Bool = false, developerBytes: UInt8 = 0) {
        define(local: 2, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (2, 2, 0x84)],
               bigEndian: bigEndian, developerBytes: developerBytes)
        self.bigEndian = bigEndian
        self.developerBytes = Int(developerBytes)
    }

    private var bigEndian = false
    private var developerBytes = 0

    mutating func record(lat: Double?, lon: Double?, alt: Double = 100, compressed: Bool = false) {
        records.append(compressed ? 0x80 | (2 << 5) | 3 : 0x02)
        append32(1_000_000_000)
        appendS32(lat.map { Int32(($0 * 2_147_483_648 / 180).rounded()) } ?? Int32.max)
        appendS32(lon.map { Int32(($0 * 2_147_483_648 / 180).rounded()) } ?? Int32.max)
        append16(UInt16((alt + 500) * 5))
        records += [UInt8](repeating: 0xAB, count: developerBytes)
    }

    private mutating func define(local: UInt8, global: UInt16, fields: [(UInt8, UInt8, UInt8)], bigEndian: Bool = false,
                                 developerBytes: UInt8 = 0) {
        records.append(0x40 | (developerBytes > 0 ? 0x20 : 0) | local)
        records += [0, bigEndian ? 1 : 0]
        records += bigEndian ? [UInt8(global >> 8), UInt8(global & 0xFF)] : [UInt8(global & 0xFF), UInt8(global >> 8)]
        records.append(UInt8(fields.count))
        for f in fields { records += [f.0, f.1, f.2] }
        if developerBytes > 0 { records += [1, 0, developerBytes, 0] }
    }

    private mutating func append16(_ v: UInt16) {
        records += bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }

    private mutating func append32(_ v: UInt32) {
        let le = [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
        records += bigEndian ? le.reversed() : le
    }

    private mutating func appendS32(_ v: Int32) { append32(UInt32(bitPattern: v)) }

    var data: Data { FITEncoder.file(records: records, profileVersion: FITProfile.version) }
}

@Suite("Course files")
struct CourseFileTests {
    static func read(_ text: String, _ format: CourseFileFormat? = nil) throws(CourseFileError) -> Course {
        try CourseFile.read(Data(text.utf8), format: format)
    }

    static let gpxHead = #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">"#

    @Test("GPX: a track's segments in order, its name, elevations; the route only when there is no track")
    func gpx() throws {
        let c = try Self.read(Self.gpxHead + """
            <metadata><name>meta</name></metadata>
            <!-- planned --><rte><name>the route</name><rtept lat="1" lon="1"/><rtept lat="1.1" lon="1"/></rte>
            <trk><name>Lake &amp; hill</name><trkseg>
              <trkpt lat="47.0" lon="8.0"><ele>400.5</ele></trkpt><trkpt lat='47.001' lon='8.0'/>
            </trkseg><trkseg><trkpt lat="47.002" lon="8.0"><ele><![CDATA[402]]></ele></trkpt></trkseg></trk></gpx>
            """)
        #expect(c.name == "Lake & hill")
        #expect(c.points.map(\.latitude) == [47.0, 47.001, 47.002])
        #expect(c.points[0].elevation == 400.5 && c.points[1].elevation.isNaN && c.points[2].elevation == 402)
        let r = try Self.read(Self.gpxHead + #"<rte><name>r</name><rtept lat="1" lon="1"/><rtept lat="1.1" lon="1"/></rte></gpx>"#)
        #expect(r.name == "r" && r.points.count == 2)
        // A namespace prefix on every element reads the same.
        let p = try Self.read(#"<g:gpx xmlns:g="http://www.topografix.com/GPX/1/1"><g:trk><g:trkseg><g:trkpt lat="2" lon="3"/><g:trkpt lat="2.01" lon="3"/></g:trkseg></g:trk></g:gpx>"#)
        #expect(p.points.count == 2 && p.name == "course")
    }

    @Test("TCX: the course's track points, never its 0,0 BeginPosition; points without a position are skipped")
    func tcx() throws {
        let c = try Self.read("""
            <?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <Courses><Course><Name>Ridge</Name><Lap><BeginPosition><LatitudeDegrees>0.0</LatitudeDegrees>
            <LongitudeDegrees>0.0</LongitudeDegrees></BeginPosition></Lap><Track>
            <Trackpoint><Position><LatitudeDegrees>46.5</LatitudeDegrees><LongitudeDegrees>7.5</LongitudeDegrees></Position>
            <AltitudeMeters>1200</AltitudeMeters></Trackpoint>
            <Trackpoint><HeartRateBpm><Value>120</Value></HeartRateBpm></Trackpoint>
            <Trackpoint><Position><LatitudeDegrees>46.501</LatitudeDegrees><LongitudeDegrees>7.5</LongitudeDegrees></Position></Trackpoint>
            </Track></Course><Course><Name>Second</Name><Track><Trackpoint><Position><LatitudeDegrees>10</LatitudeDegrees>
            <LongitudeDegrees>10</LongitudeDegrees></Position></Trackpoint></Track></Course></Courses></TrainingCenterDatabase>
            """)
        #expect(c.name == "Ridge")
        #expect(c.points.map(\.latitude) == [46.5, 46.501] && c.points[0].elevation == 1200)
    }

    @Test("FIT: records in both byte orders, compressed timestamps, developer fields; the course's name")
    func fit() throws {
        var b = FITBuilder()
        b.fileID(type: 6)
        b.courseName("Col")
        b.defineRecord()
        b.record(lat: 45.9, lon: 6.9, alt: 1000)
        b.record(lat: nil, lon: nil)   // a record without a position (heart rate only) is skipped
        b.defineRecord(bigEndian: true, developerBytes: 3)
        b.record(lat: 45.901, lon: 6.9, alt: 1010, compressed: true)
        let c = try CourseFile.read(b.data)
        #expect(c.name == "Col")
        #expect(c.points.count == 2)
        #expect(abs(c.points[1].latitude - 45.901) < 1e-7 && abs(c.points[1].elevation - 1010) < 0.3)
    }

    @Test("the format is found from the content, and a wrong declaration is refused")
    func sniffing() throws {
        var b = FITBuilder()
        b.fileID(type: 6)
        b.defineRecord()
        b.record(lat: 1, lon: 1)
        b.record(lat: 1.01, lon: 1)
        #expect(CourseFileFormat.sniff(b.data) == .fit)
        #expect(CourseFileFormat.sniff(Data((Self.gpxHead + "</gpx>").utf8)) == .gpx)
        #expect(CourseFileFormat(fileName: "x/Route.TCX") == .tcx)
        #expect(throws: CourseFileError("the file was sent as gpx but is FIT")) { try CourseFile.read(b.data, format: .gpx) }
    }

    @Test("what is not a course is refused with a reason", arguments: [
        ("", "empty"),
        (gpxHead + "<metadata><name>x</name></metadata></gpx>", "no track (trkpt) or route (rtept) points"),
        (gpxHead + #"<trk><trkseg><trkpt lat="47" lon="8"/></trkseg></trk></gpx>"#, "at least two distinct points"),
        (gpxHead + #"<trk><trkseg><trkpt lat="47" lon="8"/><trkpt lat="47" lon="8"/></trkseg></trk></gpx>"#, "at least two distinct points"),
        (gpxHead + #"<trk><trkseg><trkpt lat="47" lon="8"/><trkpt lat="47.1" lon="8">"#, "ends inside <trkpt> (truncated"),
        (gpxHead + #"<trk><trkseg><trkpt lat="47" lon="8"></trkseg></trk></gpx>"#, "</trkseg> where </trkpt> was expected"),
        (gpxHead + #"<trk><trkseg><trkpt lat=47 lon="8"/></trkseg></trk></gpx>"#, "not quoted"),
        (gpxHead + #"<trk><name>a &nbsp; b</name></trk></gpx>"#, "unknown entity"),
        (gpxHead + #"<trk><trkseg><trkpt lon="8"/></trkseg></trk></gpx>"#, "no valid lat/lon"),
        (gpxHead + #"<trk><trkseg><trkpt lat="0" lon="0"/><trkpt lat="1" lon="1"/></trkseg></trk></gpx>"#, "0,0"),
        (gpxHead + "</gpx><gpx></gpx>", "second root element"),
        ("<kml><Document/></kml>", "not a GPX, TCX or FIT file"),
        ("just some text", "not a GPX, TCX or FIT file"),
        (#"<TrainingCenterDatabase><Courses><Course><Lap><BeginPosition><LatitudeDegrees>0</LatitudeDegrees><LongitudeDegrees>0</LongitudeDegrees></BeginPosition></Lap></Course></Courses></TrainingCenterDatabase>"#,
         "no Trackpoint with a Position"),
    ])
    func refused(text: String, reason: String) {
        do {
            _ = try Self.read(text)
            Issue.record("accepted \(text.prefix(80))")
        } catch {
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test("broken XML names the line")
    func brokenLine() {
        #expect(throws: CourseFileError("GPX: broken XML at line 3: </trk> where </trkseg> was expected")) {
            try Self.read(Self.gpxHead + "\n<trk><trkseg>\n</trk>")
        }
    }

    @Test("FIT: an activity recorded without positions, a wrong CRC, a truncated file")
    func fitRefused() throws {
        var b = FITBuilder()
        b.fileID(type: 4)
        b.defineRecord()
        for _ in 0..<20 { b.record(lat: nil, lon: nil) }
        #expect(throws: CourseFileError("FIT: none of its 20 records has a position (an activity recorded without GPS is not a course)")) {
            try CourseFile.read(b.data)
        }
        var good = FITBuilder()
        good.fileID(type: 6)
        good.defineRecord()
        good.record(lat: 1, lon: 1)
        good.record(lat: 1.01, lon: 1)
        var damaged = [UInt8](good.data)
        damaged[30] ^= 0x40
        do {
            _ = try CourseFile.read(Data(damaged))
            Issue.record("a damaged FIT was read")
        } catch {
            #expect(error.message.contains("CRC is wrong"), "\(error.message)")
        }
        do {
            _ = try CourseFile.read(good.data.prefix(40))
            Issue.record("a truncated FIT was read")
        } catch {
            #expect(error.message.contains("truncated"), "\(error.message)")
        }
    }

    @Test("10 MB of garbage is refused at once, as each format and as none")
    func garbage() throws {
        var rng = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 10 << 20)
        for i in stride(from: 0, to: bytes.count, by: 8) {
            withUnsafeBytes(of: rng.next()) { raw in for k in 0..<8 { bytes[i + k] = raw[k] } }
        }
        let data = Data(bytes)
        for format in [nil] + CourseFileFormat.allCases {
            #expect(throws: CourseFileError.self) { try CourseFile.read(data, format: format) }
        }
        // Garbage inside a well-formed start is still refused (it is text where elements should be).
        var xml = Data((Self.gpxHead + "<trk><trkseg>").utf8)
        xml.append(data.prefix(1 << 20))
        #expect(throws: CourseFileError.self) { try CourseFile.read(xml) }
    }
}

@Suite("Course files: the shared courses", .enabled(if: ExportSharedData.courses != nil, "../shared/data/courses is absent"))
struct SharedCourseFileTests {
    @Test("GPX, TCX and FIT of every course give the same points (TCX never its 0,0 BeginPosition) and the truth's length")
    func sameInEveryFormat() throws {
        let dir = try #require(ExportSharedData.courses)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".course.truth.json") }.map { String($0.dropLast(".course.truth.json".count)) }
        #expect(names.count >= 5)
        for name in names {
            let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("\(name).course.truth.json"))) as? [String: Any])
            let length = try #require(truth["course_length_m"] as? Double)
            var courses: [Course] = []
            for format in CourseFileFormat.allCases {
                let data = try Data(contentsOf: dir.appendingPathComponent("\(name).course.\(format.rawValue)"))
                courses.append(try CourseFile.read(data, format: format))
            }
            for c in courses {
                #expect(c.name == name)
                #expect(c.points.count == courses[0].points.count, "\(name): \(courses.map(\.points.count))")
                // The truth's lengths differ from the vertices' great-circle length by up to 0.03 % (c_trail).
                #expect(abs(CourseSummary(c.points).length - length) < 5e-4 * length,
                        "\(name): \(CourseSummary(c.points).length) vs \(length)")
                for (p, q) in zip(c.points, courses[0].points) {
                    #expect(abs(p.latitude - q.latitude) < 1e-6 && abs(p.longitude - q.longitude) < 1e-6)
                }
            }
        }
    }
}

@Suite("Course files: the mirror of the exports")
struct CourseExportMirrorTests {
    @Test("a session exported as GPX, TCX or FIT reads back as a course with its track points")
    func roundTrip() throws {
        let session = ExportFixture.session()
        for format in CourseFileFormat.allCases {
            let data = try #require(ExportFormat(rawValue: format.rawValue)).export(session)
            let course = try CourseFile.read(data, format: format)
            #expect(course.points.count == session.points.count, "\(format)")
            for (p, q) in zip(course.points, session.points) {
                #expect(abs(p.latitude - q.latitude) < 1e-6 && abs(p.longitude - q.longitude) < 1e-6)
            }
        }
    }

    @Test("exports name the course the session followed")
    func courseNamed() throws {
        var session = ExportFixture.session()
        session.course = "Lake & loop"
        let gpx = String(decoding: GPXWriter.write(session), as: UTF8.self)
        #expect(gpx.components(separatedBy: "<desc>Followed course Lake &amp; loop</desc>").count == 3)
        let tcx = String(decoding: TCXWriter.write(session), as: UTF8.self)
        let notes = try #require(tcx.range(of: "<Notes>Followed course Lake &amp; loop</Notes>"))
        // Activity_t: the notes come after the last lap and before the creator.
        #expect(try #require(tcx.range(of: "</Lap>", options: .backwards)).upperBound <= notes.lowerBound)
        #expect(notes.upperBound <= (try #require(tcx.range(of: "<Creator"))).lowerBound)
        #expect(!String(decoding: GPXWriter.write(ExportFixture.session()), as: UTF8.self).contains("<desc>"))
    }
}
