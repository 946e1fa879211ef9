import Glibc

/// What `course show` tells about a course: its length, climb and extent.
public struct CourseSummary: Sendable, Equatable {
    /// Metres along the vertices (great-circle segments).
    public var length: Double
    /// Metres of ascent and descent along the course, with a small
    /// hysteresis (`elevationHysteresis`) so that a planner's rounding of
    /// elevations to tenths does not add up; 0 when the file has no elevations.
    public var climb: Double
    public var descent: Double
    public var points: Int
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double
    public var start: GeoPoint
    public var finish: GeoPoint

    /// Elevation changes smaller than this are not counted, metres. Planners
    /// take elevations from a terrain model sampled every few metres; its
    /// steps are decimetres, real climbs are metres.
    public static let elevationHysteresis = 1.0

    public init(_ points: [CoursePoint]) {
        var length = 0.0
        var climb = 0.0, descent = 0.0
        var anchor = Double.nan
        var minLat = Double.infinity, maxLat = -Double.infinity
        var minLon = Double.infinity, maxLon = -Double.infinity
        for (i, p) in points.enumerated() {
            minLat = min(minLat, p.latitude)
            maxLat = max(maxLat, p.latitude)
            minLon = min(minLon, p.longitude)
            maxLon = max(maxLon, p.longitude)
            if i > 0 {
                let q = points[i - 1]
                length += Geodesy.distance(lat1: q.latitude, lon1: q.longitude, lat2: p.latitude, lon2: p.longitude)
            }
            guard p.elevation.isFinite else { continue }
            if !anchor.isFinite {
                anchor = p.elevation
            } else if p.elevation - anchor >= Self.elevationHysteresis {
                climb += p.elevation - anchor
                anchor = p.elevation
            } else if anchor - p.elevation >= Self.elevationHysteresis {
                descent += anchor - p.elevation
                anchor = p.elevation
            }
        }
        self.length = length
        self.climb = climb
        self.descent = descent
        self.points = points.count
        minLatitude = points.isEmpty ? .nan : minLat
        maxLatitude = points.isEmpty ? .nan : maxLat
        minLongitude = points.isEmpty ? .nan : minLon
        maxLongitude = points.isEmpty ? .nan : maxLon
        start = GeoPoint(latitude: points.first?.latitude ?? .nan, longitude: points.first?.longitude ?? .nan)
        finish = GeoPoint(latitude: points.last?.latitude ?? .nan, longitude: points.last?.longitude ?? .nan)
    }
}
