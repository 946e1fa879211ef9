import FoundationEssentials
import MoonRunnerCore

/// `STATUS.course`: the course being followed and where the wearer is on it.
public struct CourseStatusReply: Codable, Sendable, Equatable {
    /// The library's id; null for a course no longer in the library.
    @NullCoded public var id: Int64?
    public var name: String
    public var lengthM: Double
    /// Metres along the course; null while off course or before joining it.
    @NullCoded public var progressM: Double?
    @NullCoded public var toGoM: Double?
    /// Seconds to the finish at the session's average moving speed.
    @NullCoded public var etaS: Double?
    /// Metres to the nearest point of the part of the course the wearer can be on.
    @NullCoded public var distanceToCourseM: Double?
    public var onCourse: Bool
    /// Bearing to that point, degrees; null when on course.
    @NullCoded public var bearingToCourseDeg: Double?
    public var finished: Bool
    /// The next cue ahead: its kind, name, where it lies and how far it is;
    /// null off course, while where along is held, past the last cue (since 1.3).
    @NullCoded public var nextCue: CueEvent?

    public init(_ s: CourseStatus) {
        id = s.id
        name = s.name
        lengthM = s.length
        progressM = s.progress
        toGoM = s.toGo
        etaS = s.eta
        distanceToCourseM = s.distanceToCourse
        onCourse = s.onCourse
        bearingToCourseDeg = s.bearingToCourse
        finished = s.finished
        nextCue = s.nextCue.map { CueEvent(kind: $0.cue.kind, name: $0.cue.name, courseM: $0.cue.courseM,
                                           distanceM: $0.distance, then: $0.cue.then) }
    }

    enum CodingKeys: String, CodingKey {
        case id, name, lengthM = "length_m", progressM = "progress_m", toGoM = "to_go_m", etaS = "eta_s",
             distanceToCourseM = "distance_to_course_m", onCourse = "on_course", bearingToCourseDeg = "bearing_to_course_deg",
             finished, nextCue = "next_cue"
    }
}

/// `STATUS.home`: the straight line back to where the session started.
public struct HomeReply: Codable, Sendable, Equatable {
    public var distanceM: Double
    public var bearingDeg: Double

    public init(_ h: Heading) {
        distanceM = h.distance
        bearingDeg = h.bearing
    }

    enum CodingKeys: String, CodingKey { case distanceM = "distance_m", bearingDeg = "bearing_deg" }
}

/// `STATUS.destination`: the point the session heads for.
public struct DestinationReply: Codable, Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    /// Straight line from the position; null before the first position.
    @NullCoded public var distanceM: Double?
    @NullCoded public var bearingDeg: Double?
    public var arrived: Bool

    public init(point: GeoPoint, heading: Heading?, arrived: Bool) {
        lat = point.latitude
        lon = point.longitude
        distanceM = heading?.distance
        bearingDeg = heading?.bearing
        self.arrived = arrived
    }

    enum CodingKeys: String, CodingKey {
        case lat, lon, distanceM = "distance_m", bearingDeg = "bearing_deg", arrived
    }
}

/// `SESSION.course`: the course a session followed.
public struct SessionCourseReply: Codable, Sendable, Equatable {
    @NullCoded public var id: Int64?
    public var name: String
    public var finished: Bool

    public init(id: Int64?, name: String, finished: Bool) {
        self.id = id
        self.name = name
        self.finished = finished
    }
}
