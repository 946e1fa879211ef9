/// One vertex of a planned course, as a route planner exports it.
public struct CoursePoint: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    /// Metres above sea level, NaN when the file has none.
    public var elevation: Double

    public init(latitude: Double, longitude: Double, elevation: Double = .nan) {
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
    }

    private enum CodingKeys: String, CodingKey { case lat, lon, ele }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        latitude = try c.decode(Double.self, forKey: .lat)
        longitude = try c.decode(Double.self, forKey: .lon)
        elevation = try c.decodeIfPresent(Double.self, forKey: .ele) ?? .nan
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(latitude, forKey: .lat)
        try c.encode(longitude, forKey: .lon)
        if elevation.isFinite { try c.encode(elevation, forKey: .ele) }
    }
}

/// A planned route: a name, its vertices in the order they are run, and
/// the points the file names beside them (turns, water, a summit: `marks`,
/// placed on the course by `CourseCues`). Only the vertices and those points
/// are trusted; summary fields of the files (a TCX `BeginPosition`, a FIT
/// lap's distance) are not read.
public struct Course: Sendable, Equatable {
    public var name: String
    public var points: [CoursePoint]
    public var marks: [CourseMark]

    public init(name: String, points: [CoursePoint], marks: [CourseMark] = []) {
        self.name = name
        self.points = points
        self.marks = marks
    }
}

/// Why a list of points is not a course.
public struct CourseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A position on the globe, degrees.
public struct GeoPoint: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True for finite coordinates within ±90° / ±180°.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }

    private enum CodingKeys: String, CodingKey { case latitude = "lat", longitude = "lon" }
}
