/// Live and final figures of a session. Times in seconds, distances in
/// metres, speeds in m/s.
public struct SessionStats: Sendable, Equatable, Codable {
    public var activity: Activity = .run
    public var startTime: Double = .nan
    public var elapsed: Double = 0
    public var moving: Double = 0
    public var distance: Double = 0
    public var steps: Int = 0
    /// Current cadence, steps/min.
    public var cadence: Double = 0
    /// Current speed, m/s (0 when paused).
    public var speed: Double = 0
    public var maxSpeed: Double = 0
    public var elevationGain: Double = 0
    public var elevationLoss: Double = 0
    public var laps: Int = 0
    public var points: Int = 0
    public var rejectedFixes: Int = 0
    /// Where the altitude (and so the climb) of this session came from: the
    /// barometer when it gave the altitude of at least half the track's
    /// points, else the terrain model when it gave more of them than GPS
    /// alone, else GPS. `altitudeShares` says how much each gave.
    public var altitudeSource: AltitudeSource = .gps
    /// Track points whose altitude was barometric.
    public var barometricPoints: Int = 0
    /// Track points whose altitude was the terrain model's (a DEM).
    public var demPoints: Int = 0

    public init() {}

    /// Counts the altitude source of the point just recorded (already in `points`).
    mutating func noteAltitude(from source: AltitudeSource) {
        if source == .barometric { barometricPoints += 1 }
        if source == .dem { demPoints += 1 }
        if barometricPoints > 0 && 2 * barometricPoints >= points {
            altitudeSource = .barometric
        } else {
            altitudeSource = demPoints > 0 && demPoints >= points - barometricPoints - demPoints ? .dem : .gps
        }
    }

    /// The share of the track's points each source gave the altitude of (0–1, the three summing
    /// to 1; all GPS before any point). The sources are counted per accepted fix, and a fix
    /// places no point while the wearer stands: the larger count is the whole.
    public var altitudeShares: AltitudeShares {
        guard points > 0 else { return AltitudeShares(barometric: 0, dem: 0, gps: 1) }
        let n = Double(max(points, barometricPoints + demPoints))
        let baro = Double(barometricPoints) / n, dem = Double(demPoints) / n
        return AltitudeShares(barometric: baro, dem: dem, gps: max(0, 1 - baro - dem))
    }

    /// Average speed over moving time, m/s.
    public var averageSpeed: Double { moving > 0 ? distance / moving : 0 }
    /// Average cadence over moving time, steps/min.
    public var averageCadence: Double { moving > 0 ? Double(steps) / moving * 60 : 0 }
    /// Average pace, seconds per km (NaN when not moving).
    public var averagePace: Double { averageSpeed > 0.05 ? 1000 / averageSpeed : .nan }
    /// Current pace, seconds per km (NaN when not moving).
    public var pace: Double { speed > 0.05 ? 1000 / speed : .nan }

    private enum CodingKeys: String, CodingKey {
        case activity, startTime = "start_time", elapsed = "elapsed_s", moving = "moving_s",
             distance = "distance_m", steps, cadence = "cadence_spm", speed = "speed_mps",
             maxSpeed = "max_speed_mps", elevationGain = "elevation_gain_m",
             elevationLoss = "elevation_loss_m", laps, points, rejectedFixes = "rejected_fixes",
             altitudeSource = "altitude_source", barometricPoints = "barometric_points", demPoints = "dem_points"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        activity = try c.decodeIfPresent(Activity.self, forKey: .activity) ?? .run
        startTime = try c.decodeIfPresent(Double.self, forKey: .startTime) ?? .nan
        elapsed = try c.decodeIfPresent(Double.self, forKey: .elapsed) ?? 0
        moving = try c.decodeIfPresent(Double.self, forKey: .moving) ?? 0
        distance = try c.decodeIfPresent(Double.self, forKey: .distance) ?? 0
        steps = try c.decodeIfPresent(Int.self, forKey: .steps) ?? 0
        cadence = try c.decodeIfPresent(Double.self, forKey: .cadence) ?? 0
        speed = try c.decodeIfPresent(Double.self, forKey: .speed) ?? 0
        maxSpeed = try c.decodeIfPresent(Double.self, forKey: .maxSpeed) ?? 0
        elevationGain = try c.decodeIfPresent(Double.self, forKey: .elevationGain) ?? 0
        elevationLoss = try c.decodeIfPresent(Double.self, forKey: .elevationLoss) ?? 0
        laps = try c.decodeIfPresent(Int.self, forKey: .laps) ?? 0
        points = try c.decodeIfPresent(Int.self, forKey: .points) ?? 0
        rejectedFixes = try c.decodeIfPresent(Int.self, forKey: .rejectedFixes) ?? 0
        altitudeSource = try c.decodeIfPresent(AltitudeSource.self, forKey: .altitudeSource) ?? .gps
        barometricPoints = try c.decodeIfPresent(Int.self, forKey: .barometricPoints) ?? 0
        demPoints = try c.decodeIfPresent(Int.self, forKey: .demPoints) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(activity, forKey: .activity)
        if startTime.isFinite { try c.encode(startTime, forKey: .startTime) }
        try c.encode(elapsed, forKey: .elapsed)
        try c.encode(moving, forKey: .moving)
        try c.encode(distance, forKey: .distance)
        try c.encode(steps, forKey: .steps)
        try c.encode(cadence, forKey: .cadence)
        try c.encode(speed, forKey: .speed)
        try c.encode(maxSpeed, forKey: .maxSpeed)
        try c.encode(elevationGain, forKey: .elevationGain)
        try c.encode(elevationLoss, forKey: .elevationLoss)
        try c.encode(laps, forKey: .laps)
        try c.encode(points, forKey: .points)
        try c.encode(rejectedFixes, forKey: .rejectedFixes)
        try c.encode(altitudeSource, forKey: .altitudeSource)
        try c.encode(barometricPoints, forKey: .barometricPoints)
        try c.encode(demPoints, forKey: .demPoints)
    }
}

/// How much of a session's track each altitude source gave, as shares of its points (0–1).
public struct AltitudeShares: Sendable, Equatable, Codable {
    public var barometric, dem, gps: Double

    public init(barometric: Double, dem: Double, gps: Double) {
        self.barometric = barometric
        self.dem = dem
        self.gps = gps
    }
}
