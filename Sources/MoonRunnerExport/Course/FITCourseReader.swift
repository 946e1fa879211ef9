import FoundationEssentials
import MoonRunnerCore

/// FIT courses (and activities) as Garmin Connect, Strava and gpsbabel write
/// them: every `record` with a position, in order; the name from the
/// `course` message; every `course_point` with a position (its type, name
/// and distance along the course) as a mark. The bytes are decoded by
/// `FITDecoder` (CRCs, byte orders, developer fields, compressed
/// timestamps, chained files), which the workout reader shares.
enum FITCourseReader {
    static func read(_ data: Data) throws(CourseFileError) -> Course {
        var fit = FITDecoder([UInt8](data))
        var points: [CoursePoint] = []
        var marks: [CourseMark] = []
        var name = ""
        var records = 0
        while let m = try next(&fit) {
            switch m.global {
            case 20:
                records += 1
                if let p = record(m) {
                    points.append(p)
                    guard points.count <= CourseFile.maxPoints else {
                        throw CourseFileError("FIT: more than \(CourseFile.maxPoints) points")
                    }
                }
            case 31 where name.isEmpty:
                // The `course` message's name (field 5).
                name = m.string(5) ?? ""
            case 32:
                if let mark = coursePoint(m) {
                    marks.append(mark)
                    guard marks.count <= CourseFile.maxPoints else {
                        throw CourseFileError("FIT: more than \(CourseFile.maxPoints) course points")
                    }
                }
            default:
                break
            }
        }
        guard !points.isEmpty else {
            throw CourseFileError(records > 0
                ? "FIT: none of its \(records) records has a position (an activity recorded without GPS is not a course)"
                : "FIT: the file holds no records with positions")
        }
        return Course(name: name, points: points, marks: marks)
    }

    private static func next(_ fit: inout FITDecoder) throws(CourseFileError) -> FITMessage? {
        do throws(FITReadError) {
            return try fit.next()
        } catch {
            throw CourseFileError(error.message)
        }
    }

    /// A record's position (fields 0, 1, semicircles) and altitude (2, or
    /// enhanced 78: scale 5, offset 500), nil without a valid position.
    private static func record(_ m: FITMessage) -> CoursePoint? {
        guard let p = position(m.sint32(0), m.sint32(1)) else { return nil }
        let enhanced = m.uint(78).map { Double($0) / 5 - 500 }
        let altitude = m.uint(2).map { Double($0) / 5 - 500 }
        return CoursePoint(latitude: p.latitude, longitude: p.longitude, elevation: enhanced ?? altitude ?? .nan)
    }

    /// A position from FIT's semicircles; nil when either is absent or
    /// invalid (0x7FFFFFFF), out of range, or 0,0 (a device's unset position).
    private static func position(_ lat: Int32?, _ lon: Int32?) -> GeoPoint? {
        guard let la = lat, let lo = lon else { return nil }
        let degrees = 180.0 / 2_147_483_648.0
        let p = GeoPoint(latitude: Double(la) * degrees, longitude: Double(lo) * degrees)
        guard p.isValid, abs(p.latitude) > 1e-7 || abs(p.longitude) > 1e-7 else { return nil }
        return p
    }

    /// A `course_point` (global 32): position (fields 2, 3, semicircles),
    /// distance along the course (4, cm), type (5) and name (6); nil without
    /// a valid position.
    private static func coursePoint(_ m: FITMessage) -> CourseMark? {
        guard let p = position(m.sint32(2), m.sint32(3)) else { return nil }
        let type = m.uint(5).map { UInt8(truncatingIfNeeded: $0) } ?? 0
        return CourseMark(latitude: p.latitude, longitude: p.longitude, kind: CueKind(fit: type),
                          name: m.string(6), distance: m.uint(4).map { Double($0) / 100 })
    }
}
