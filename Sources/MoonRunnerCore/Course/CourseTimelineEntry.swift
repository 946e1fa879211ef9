/// One position on the course, as `analyze --course` prints it: `null` for
/// what is not known (progress and distance to go while off course, the
/// ETA before the wearer has moved).
public struct CourseTimelineEntry: Sendable, Equatable, Codable {
    /// Trace clock of the position.
    public var time: Double
    public var progress: Double?
    public var toGo: Double?
    public var distanceToCourse: Double
    public var offCourse: Bool
    public var eta: Double?

    public init(time: Double, progress: Double?, toGo: Double?, distanceToCourse: Double, offCourse: Bool, eta: Double?) {
        self.time = time
        self.progress = progress
        self.toGo = toGo
        self.distanceToCourse = distanceToCourse
        self.offCourse = offCourse
        self.eta = eta
    }

    private enum CodingKeys: String, CodingKey {
        case time = "t", progress = "progress_m", toGo = "to_go_m", distanceToCourse = "distance_to_course_m",
             offCourse = "off_course", eta = "eta_s"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time, forKey: .time)
        try c.encode(progress, forKey: .progress)
        try c.encode(toGo, forKey: .toGo)
        try c.encode(distanceToCourse, forKey: .distanceToCourse)
        try c.encode(offCourse, forKey: .offCourse)
        try c.encode(eta, forKey: .eta)
    }
}
