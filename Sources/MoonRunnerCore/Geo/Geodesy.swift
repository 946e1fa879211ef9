import Glibc

/// Distances and local projections on the WGS-84 sphere approximation that
/// running distances need (errors well under 0.1 % at these scales).
public enum Geodesy {
    /// Mean Earth radius, metres.
    public static let earthRadius = 6_371_008.8

    /// Great-circle distance in metres between two points in degrees.
    @inlinable
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180
        let dp = p2 - p1, dl = (lon2 - lon1) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }

    /// Initial bearing in degrees [0, 360) from point 1 to point 2.
    public static func bearing(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180, dl = (lon2 - lon1) * .pi / 180
        let y = sin(dl) * cos(p2)
        let x = cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)
        let b = atan2(y, x) * 180 / .pi
        return b < 0 ? b + 360 : b
    }
}

/// An east/north plane tangent at an origin: metres are easy to filter in,
/// degrees are not. Accurate to centimetres within tens of kilometres.
public struct LocalTangentPlane: Sendable, Equatable {
    public let originLat: Double
    public let originLon: Double
    private let metresPerDegLat: Double
    private let metresPerDegLon: Double

    public init(originLat: Double, originLon: Double) {
        self.originLat = originLat
        self.originLon = originLon
        let phi = originLat * .pi / 180
        // WGS-84 meridional and prime-vertical radii of curvature.
        let a = 6_378_137.0, e2 = 0.00669437999014
        let s = sin(phi)
        let w = (1 - e2 * s * s).squareRoot()
        metresPerDegLat = (a * (1 - e2) / (w * w * w)) * .pi / 180
        metresPerDegLon = (a / w) * cos(phi) * .pi / 180
    }

    /// (east, north) in metres.
    @inlinable
    public func project(lat: Double, lon: Double) -> (east: Double, north: Double) {
        ((lon - originLon) * metresPerDegLonValue, (lat - originLat) * metresPerDegLatValue)
    }

    public func unproject(east: Double, north: Double) -> (lat: Double, lon: Double) {
        (originLat + north / metresPerDegLat, originLon + east / metresPerDegLon)
    }

    @usableFromInline var metresPerDegLatValue: Double { metresPerDegLat }
    @usableFromInline var metresPerDegLonValue: Double { metresPerDegLon }
}
