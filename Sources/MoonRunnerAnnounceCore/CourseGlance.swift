import FoundationEssentials

/// The part of `STATUS.course` the announcer needs to say the way back
/// (added to the daemon by the courses work; absent before it).
public struct CourseGlance: Decodable, Sendable, Equatable {
    /// Compass bearing from the wearer to the nearest point of the course, degrees.
    public var bearingToCourseDeg: Double?
    /// Metres to the course.
    public var distanceToCourseM: Double?

    public init(bearingToCourseDeg: Double? = nil, distanceToCourseM: Double? = nil) {
        self.bearingToCourseDeg = bearingToCourseDeg
        self.distanceToCourseM = distanceToCourseM
    }

    enum CodingKeys: String, CodingKey {
        case bearingToCourseDeg = "bearing_to_course_deg", distanceToCourseM = "distance_to_course_m"
    }

    private struct Holder: Decodable { var course: CourseGlance? }

    /// The `course` member of a STATUS line; nil when it has none (or it is null).
    public static func of(statusLine: String) -> CourseGlance? {
        (try? JSONDecoder().decode(Holder.self, from: Data(statusLine.utf8)))?.course
    }
}
