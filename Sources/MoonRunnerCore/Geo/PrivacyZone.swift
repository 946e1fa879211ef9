/// A circle around a place the wearer does not want shown (home, work): the
/// points of a track's start and end that lie inside one are left out of what
/// is uploaded. The radius is held to 100–2000 m: under 100 m GPS error
/// (a 95 % `eph` of 20–30 m, more beside houses) lets the true door show
/// through the edge; over 2 km a zone would swallow whole runs.
public struct PrivacyZone: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    /// Metres from the centre.
    public var radiusM: Double

    public static let radiusRange: ClosedRange<Double> = 100...2000

    public init(latitude: Double, longitude: Double, radiusM: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radiusM = radiusM
    }

    /// True for a centre on the globe and a radius within `radiusRange`.
    public var isValid: Bool {
        GeoPoint(latitude: latitude, longitude: longitude).isValid && Self.radiusRange.contains(radiusM)
    }

    /// True when the point lies inside the circle (its edge included).
    public func contains(latitude lat: Double, longitude lon: Double) -> Bool {
        guard lat.isFinite, lon.isFinite else { return false }
        return Geodesy.distance(lat1: latitude, lon1: longitude, lat2: lat, lon2: lon) <= radiusM
    }

    enum CodingKeys: String, CodingKey { case latitude = "lat", longitude = "lon", radiusM = "radius_m" }
}

extension Array where Element == PrivacyZone {
    /// True when any zone holds the point.
    public func hide(latitude: Double, longitude: Double) -> Bool {
        contains { $0.contains(latitude: latitude, longitude: longitude) }
    }
}
