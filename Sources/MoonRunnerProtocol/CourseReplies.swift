import FoundationEssentials
import MoonRunnerCore

/// A course of the library as replies show it.
public struct CourseInfo: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    /// The format it was uploaded in: gpx, tcx or fit.
    public var format: String
    /// When it was added (daemon clock).
    public var createdAt: Double
    public var lengthM: Double
    public var climbM: Double
    public var descentM: Double
    public var points: Int
    public var bounds: CourseBounds
    /// Its cues in course order (`COURSE` only, absent from `COURSES`; since
    /// 1.3): the file's own points placed on it (those farther from it than
    /// the off-course threshold marked `off_course`), or the turns of its shape.
    public var cues: [CourseCue]?

    public init(id: Int64, name: String, format: String, createdAt: Double, lengthM: Double, climbM: Double,
                descentM: Double, points: Int, bounds: CourseBounds, cues: [CourseCue]? = nil) {
        self.id = id
        self.name = name
        self.format = format
        self.createdAt = createdAt
        self.lengthM = lengthM
        self.climbM = climbM
        self.descentM = descentM
        self.points = points
        self.bounds = bounds
        self.cues = cues
    }

    enum CodingKeys: String, CodingKey {
        case id, name, format, createdAt = "created_at", lengthM = "length_m", climbM = "climb_m", descentM = "descent_m",
             points, bounds, cues
    }
}

/// The box a course fits in, degrees.
public struct CourseBounds: Codable, Sendable, Equatable {
    public var minLat: Double
    public var minLon: Double
    public var maxLat: Double
    public var maxLon: Double

    public init(minLat: Double, minLon: Double, maxLat: Double, maxLon: Double) {
        self.minLat = minLat
        self.minLon = minLon
        self.maxLat = maxLat
        self.maxLon = maxLon
    }

    enum CodingKeys: String, CodingKey { case minLat = "min_lat", minLon = "min_lon", maxLat = "max_lat", maxLon = "max_lon" }
}

/// `{"class":"COURSES","courses":[...]}`, newest first.
public struct CoursesReply: Codable, Sendable, Equatable {
    public var cls = "COURSES"
    public var courses: [CourseInfo]
    public var id: JSONValue?

    public init(courses: [CourseInfo], id: JSONValue? = nil) {
        self.courses = courses
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", courses, id }
}

/// `{"class":"COURSE","course":{...}}`: one course (also the reply to a completed upload).
public struct CourseReply: Codable, Sendable, Equatable {
    public var cls = "COURSE"
    public var course: CourseInfo
    public var id: JSONValue?

    public init(course: CourseInfo, id: JSONValue? = nil) {
        self.course = course
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", course, id }
}

/// `{"class":"COURSE_DELETED","course":N}`.
public struct CourseDeletedReply: Codable, Sendable, Equatable {
    public var cls = "COURSE_DELETED"
    public var course: Int64
    public var id: JSONValue?

    public init(course: Int64, id: JSONValue? = nil) {
        self.course = course
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", course, id }
}
