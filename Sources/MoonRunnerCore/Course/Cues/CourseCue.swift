/// A point a course file names beside its line (a TCX `CoursePoint`, a FIT
/// `course_point`, a GPX waypoint or typed route point), as the file has it:
/// where it is, what it says, and, for FIT, how far along the course the
/// file places it.
public struct CourseMark: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var kind: CueKind
    public var name: String?
    public var notes: String?
    /// Metres along the course as the file says (FIT's `distance`); nil when it does not.
    public var distance: Double?

    public init(latitude: Double, longitude: Double, kind: CueKind, name: String? = nil, notes: String? = nil,
                distance: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.kind = kind
        self.name = name
        self.notes = notes
        self.distance = distance
    }
}

/// One cue of a course: a turn or a point of interest at its place along
/// the course, from the file's own points or found in the course's shape.
public struct CourseCue: Sendable, Equatable, Codable {
    public var kind: CueKind
    /// The street or place, as the file names it; nil (null) when it does not.
    @NullCoded public var name: String?
    @NullCoded public var notes: String?
    /// Metres along the course where it lies.
    public var courseM: Double
    /// Its position: the file's point, or the course's at a found turn.
    public var latitude: Double
    public var longitude: Double
    /// Metres from the course (0 for a found turn).
    public var offsetM: Double
    /// Farther from the course than the off-course threshold: kept and listed
    /// as a point of interest, never said (the wearer does not pass it).
    public var offCourse: Bool
    /// Turns that follow within `TurnFinder.joinDistance`, said with this one
    /// ("turn left, then right"); empty for most.
    public var then: [CueKind]
    /// True when found in the course's shape rather than read from the file.
    public var found: Bool

    public init(kind: CueKind, name: String? = nil, notes: String? = nil, courseM: Double, latitude: Double,
                longitude: Double, offsetM: Double = 0, offCourse: Bool = false, then: [CueKind] = [],
                found: Bool = false) {
        self.kind = kind
        self.name = name
        self.notes = notes
        self.courseM = courseM
        self.latitude = latitude
        self.longitude = longitude
        self.offsetM = offsetM
        self.offCourse = offCourse
        self.then = then
        self.found = found
    }

    private enum CodingKeys: String, CodingKey {
        case kind, name, notes, courseM = "course_m", latitude = "lat", longitude = "lon", offsetM = "offset_m",
             offCourse = "off_course", then, found
    }
}
