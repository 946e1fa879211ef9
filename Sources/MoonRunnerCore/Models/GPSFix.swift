/// One position report as gpsd gives it (a TPV, optionally merged with the GST
/// of the same epoch). Missing values are NaN, as in libgps.
public struct GPSFix: Sendable, Equatable, Codable {
    /// Receiver time of the fix, UNIX seconds (UTC). NaN when the TPV had none.
    public var time: Double
    /// gpsd mode: 0 unknown, 1 no fix, 2 2D, 3 3D.
    public var mode: Int
    public var latitude: Double
    public var longitude: Double
    /// Altitude above mean sea level, metres.
    public var altitude: Double
    /// gpsd's 95 % horizontal error estimate, metres (read by `GPSErrorModel`).
    public var eph: Double
    /// gpsd's 95 % vertical error estimate, metres (read by `GPSErrorModel`).
    public var epv: Double
    /// Speed over ground, m/s.
    public var speed: Double
    /// Course over ground, degrees from true north.
    public var track: Double
    /// Vertical speed, m/s.
    public var climb: Double
    /// 1σ latitude / longitude / altitude error from GST, metres (NaN when absent).
    public var stdLat: Double
    public var stdLon: Double
    public var stdAlt: Double

    public init(time: Double, mode: Int, latitude: Double, longitude: Double,
                altitude: Double = .nan, eph: Double = .nan, epv: Double = .nan,
                speed: Double = .nan, track: Double = .nan, climb: Double = .nan,
                stdLat: Double = .nan, stdLon: Double = .nan, stdAlt: Double = .nan) {
        self.time = time
        self.mode = mode
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.eph = eph
        self.epv = epv
        self.speed = speed
        self.track = track
        self.climb = climb
        self.stdLat = stdLat
        self.stdLon = stdLon
        self.stdAlt = stdAlt
    }

    /// True when gpsd reports at least a 2D fix with finite coordinates.
    public var hasPosition: Bool { mode >= 2 && latitude.isFinite && longitude.isFinite }

    // NaN is not valid JSON: encode missing values as absent keys.
    private enum CodingKeys: String, CodingKey {
        case time, mode, lat, lon, alt, eph, epv, speed, track, climb, std_lat, std_lon, std_alt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func d(_ k: CodingKeys) throws -> Double { try c.decodeIfPresent(Double.self, forKey: k) ?? .nan }
        self.init(time: try d(.time), mode: try c.decodeIfPresent(Int.self, forKey: .mode) ?? 0,
                  latitude: try d(.lat), longitude: try d(.lon), altitude: try d(.alt),
                  eph: try d(.eph), epv: try d(.epv), speed: try d(.speed), track: try d(.track),
                  climb: try d(.climb), stdLat: try d(.std_lat), stdLon: try d(.std_lon), stdAlt: try d(.std_alt))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func e(_ v: Double, _ k: CodingKeys) throws { if v.isFinite { try c.encode(v, forKey: k) } }
        try e(time, .time)
        try c.encode(mode, forKey: .mode)
        try e(latitude, .lat); try e(longitude, .lon); try e(altitude, .alt)
        try e(eph, .eph); try e(epv, .epv); try e(speed, .speed); try e(track, .track); try e(climb, .climb)
        try e(stdLat, .std_lat); try e(stdLon, .std_lon); try e(stdAlt, .std_alt)
    }
}
