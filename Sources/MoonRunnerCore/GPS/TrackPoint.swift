/// A position the filter accepted, in the form the store and exports keep.
public struct TrackPoint: Sendable, Equatable, Codable {
    /// Engine clock (session time base) of the point, seconds.
    public var time: Double
    /// Receiver UTC time, UNIX seconds.
    public var fixTime: Double
    public var latitude: Double
    public var longitude: Double
    /// Metres above mean sea level, NaN when unknown.
    public var altitude: Double
    /// Filtered speed, m/s.
    public var speed: Double
    /// Course over ground, degrees, NaN when unknown.
    public var course: Double
    /// 95 % horizontal error as reported by gpsd, metres.
    public var eph: Double
    /// True when this point starts a new stretch (after a pause or a long gap):
    /// no distance is counted and no line is drawn from the previous point.
    public var newSegment: Bool
    /// The session's distance at this point, metres (NaN when unknown: points
    /// stored before it was kept). Exports write it as each point's distance.
    public var distance: Double
    /// The wearer's heart rate at this point, bpm (NaN when missing or no strap).
    public var heartRate: Double

    public init(time: Double, fixTime: Double, latitude: Double, longitude: Double,
                altitude: Double, speed: Double, course: Double, eph: Double, newSegment: Bool,
                distance: Double = .nan, heartRate: Double = .nan) {
        self.time = time
        self.fixTime = fixTime
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.eph = eph
        self.newSegment = newSegment
        self.distance = distance
        self.heartRate = heartRate
    }

    /// Field by field; a missing heart rate (NaN) equals a missing one, so
    /// that points recorded without a strap compare as they did before it.
    public static func == (a: TrackPoint, b: TrackPoint) -> Bool {
        a.time == b.time && a.fixTime == b.fixTime && a.latitude == b.latitude && a.longitude == b.longitude
            && a.altitude == b.altitude && a.speed == b.speed && a.course == b.course && a.eph == b.eph
            && a.newSegment == b.newSegment && a.distance == b.distance
            && (a.heartRate == b.heartRate || (a.heartRate.isNaN && b.heartRate.isNaN))
    }

    private enum CodingKeys: String, CodingKey {
        case time, fix_time, lat, lon, alt, speed, course, eph, new_segment, distance, hr_bpm
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = try c.decode(Double.self, forKey: .time)
        fixTime = try c.decodeIfPresent(Double.self, forKey: .fix_time) ?? .nan
        latitude = try c.decode(Double.self, forKey: .lat)
        longitude = try c.decode(Double.self, forKey: .lon)
        altitude = try c.decodeIfPresent(Double.self, forKey: .alt) ?? .nan
        speed = try c.decodeIfPresent(Double.self, forKey: .speed) ?? .nan
        course = try c.decodeIfPresent(Double.self, forKey: .course) ?? .nan
        eph = try c.decodeIfPresent(Double.self, forKey: .eph) ?? .nan
        newSegment = try c.decodeIfPresent(Bool.self, forKey: .new_segment) ?? false
        distance = try c.decodeIfPresent(Double.self, forKey: .distance) ?? .nan
        heartRate = try c.decodeIfPresent(Double.self, forKey: .hr_bpm) ?? .nan
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time, forKey: .time)
        if fixTime.isFinite { try c.encode(fixTime, forKey: .fix_time) }
        try c.encode(latitude, forKey: .lat)
        try c.encode(longitude, forKey: .lon)
        if altitude.isFinite { try c.encode(altitude, forKey: .alt) }
        if speed.isFinite { try c.encode(speed, forKey: .speed) }
        if course.isFinite { try c.encode(course, forKey: .course) }
        if eph.isFinite { try c.encode(eph, forKey: .eph) }
        if newSegment { try c.encode(true, forKey: .new_segment) }
        if distance.isFinite { try c.encode(distance, forKey: .distance) }
        if heartRate.isFinite { try c.encode(heartRate, forKey: .hr_bpm) }
    }
}

/// Why a fix was not used.
public enum FixRejection: String, Sendable, Codable, CaseIterable {
    case noFix = "no_fix"
    case nullIsland = "null_island"
    case firstFix = "first_fix"
    case poorAccuracy = "poor_accuracy"
    case stale
    case duplicate
    case outOfOrder = "out_of_order"
    case tooFast = "too_fast"
    case outlier
    /// A fix without receiver time before any fix had one: it cannot be placed
    /// on the receiver's time line (gpsd's first fix of a session).
    case noTime = "no_time"
    /// Not refused: the filter took the fix (standing, settling after the first
    /// fix), but it added no distance and so placed no point of the written
    /// track (see `TrackShaper`). Kept so that every fix is accounted for.
    case held
}

/// The seed article's signal grades from horizontal accuracy.
public enum SignalGrade: String, Sendable, Codable, CaseIterable {
    case best, better, average, bad, none

    /// Grade from gpsd's 95 % horizontal error in metres.
    public init(eph: Double) {
        guard eph.isFinite, eph >= 0 else { self = .none; return }
        switch eph {
        case ..<20: self = .best
        case ..<100: self = .better
        case ..<200: self = .average
        default: self = .bad
        }
    }
}
