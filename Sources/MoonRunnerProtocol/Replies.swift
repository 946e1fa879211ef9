import FoundationEssentials
import MoonRunnerCore

/// Protocol version announced in `VERSION`. Minor bumps add fields; major
/// bumps change or remove them. 1.4: the activities `trail_run`, `hike` and
/// `ride`; `STATUS.climb_rate_m_per_h`; `BADGES.activity` and `longest`.
/// 1.5: the terrain model: `altitude_source` `dem` and `mixed`, `altitude_shares`,
/// `dem_points`, the `terrain_lost` and `terrain_regained` events. 1.6: `STATUS.imu.device`.
/// 1.7: `?EXPORT`'s `privacy` zones.
/// 1.8: the workout events (`workout_step`, `target_low`, `target_high`,
/// `target_ok`, `workout_done`) and `EVENT.workout`.
/// 1.9: `STATUS.battery`, the `battery_low` event and the stop cause `battery`.
public enum ProtocolVersion {
    public static let major = 1
    public static let minor = 9
}

/// `{"class":"VERSION",...}`, sent on connect and in reply to `?VERSION;`.
public struct VersionReply: Codable, Sendable, Equatable {
    public var cls = "VERSION"
    public var release = MoonRunnerRelease.version
    public var protoMajor = ProtocolVersion.major
    public var protoMinor = ProtocolVersion.minor
    public var id: JSONValue?

    public init(id: JSONValue? = nil) { self.id = id }

    enum CodingKeys: String, CodingKey {
        case cls = "class", release, protoMajor = "proto_major", protoMinor = "proto_minor", id
    }
}

/// `{"class":"ERROR","code":...,"message":...}`. The connection stays open.
public struct ErrorReply: Codable, Sendable, Equatable {
    public var cls = "ERROR"
    public var code: RequestError.Code
    public var message: String
    public var id: JSONValue?

    public init(_ error: RequestError) {
        code = error.code
        message = error.message
        id = error.id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", code, message, id }
}

/// The last state transition, so that a client sees why the state is what it is.
public struct TransitionInfo: Codable, Sendable, Equatable {
    public var event: String
    public var time: Double
    public var cause: String

    public init(event: String, time: Double, cause: String) {
        self.event = event
        self.time = time
        self.cause = cause
    }
}

/// `{"class":"STATUS",...}`: the live state of the daemon and the session.
/// Its enumerated fields are Core's enums (and `HealthReplies.swift`'s), which
/// encode to the same wire words; a word this build does not know fails the
/// decoding (see there why).
public struct StatusReply: Codable, Sendable, Equatable {
    public var cls = "STATUS"
    /// Engine-clock time of this status, UNIX seconds.
    public var time: Double
    public var state: SessionState
    /// Current (or last) session id, null when none.
    @NullCoded public var session: Int64?
    @NullCoded public var activity: String?
    public var elapsedS: Double
    public var movingS: Double
    public var distanceM: Double
    public var speedMps: Double
    /// Current pace in seconds per km, null when not moving.
    @NullCoded public var paceSPerKm: Double?
    public var avgSpeedMps: Double
    public var maxSpeedMps: Double
    public var steps: Int
    public var cadenceSpm: Double
    public var elevationGainM: Double
    public var elevationLossM: Double
    /// How fast the session climbs now, m/h (the counted gain over the last
    /// minutes of moving time); null when idle (since protocol 1.4).
    @NullCoded public var climbRateMPerH: Double?
    public var laps: Int
    public var gps: GPSStatus
    public var imu: IMUStatus
    public var baro: BaroStatus
    /// Where the altitude (and the climb) comes from right now.
    public var altitudeSource: AltitudeSource
    /// The share of the session's track each source gave the altitude of so far (since protocol 1.5;
    /// null while idle).
    @NullCoded public var altitudeShares: AltitudeShares?
    public var store: StoreStatus
    @NullCoded public var lastTransition: TransitionInfo?
    /// Energy so far (ACSM equations, configured body mass).
    public var caloriesKcal: Double
    /// The next distance badge and the distance left to it, null when idle or all are passed.
    @NullCoded public var nextBadge: NextBadge?
    /// The daemon's configured display units.
    public var units: UnitSystem
    /// The course being followed, null when none.
    @NullCoded public var course: CourseStatusReply?
    /// Where the wearer is in the planned workout, null without one (since 1.8).
    @NullCoded public var workout: WorkoutStatusReply?
    /// Straight line to the session's start, null when idle or before the first position.
    @NullCoded public var home: HomeReply?
    /// The point the session heads for (`?START={"to":[lat,lon]}`), null when none.
    @NullCoded public var destination: DestinationReply?
    /// True while announcers are asked to keep silent (`?ANNOUNCE={"quiet":true};`);
    /// always sent since protocol 1.1, absent from a 1.0 daemon.
    public var quiet: Bool?
    /// How `calories_kcal` is estimated: `heart_rate` (Keytel 2005, once heart
    /// rate covers 90 % of the moving time so far) or `acsm`; the stored
    /// session's rule, so the two agree at the end (since protocol 1.2; null while idle).
    @NullCoded public var caloriesMethod: CalorieMethod?
    /// The heart rate now, bpm; null without a strap, without skin contact or 5 s without a notification.
    @NullCoded public var hrBpm: Double?
    /// Its zone, 1–5 (with hysteresis); null without a heart rate.
    @NullCoded public var hrZone: Int?
    /// The strap's link (since protocol 1.2; absent from older daemons).
    public var hrState: HeartRateLinkState?
    /// The strap's health and counters (since protocol 1.2).
    public var hr: HeartRateStatus?
    /// The battery, null without a gauge (since protocol 1.9; absent from older daemons).
    @NullCoded public var battery: BatteryStatusReply?
    public var id: JSONValue?

    public init(time: Double, state: SessionState, session: Int64?, stats: SessionStats?, gps: GPSStatus,
                imu: IMUStatus, baro: BaroStatus = .none, altitudeSource: AltitudeSource = .gps, store: StoreStatus,
                lastTransition: TransitionInfo?, units: UnitSystem,
                caloriesKcal: Double = 0, nextBadge: NextBadge? = nil, course: CourseStatusReply? = nil,
                home: HomeReply? = nil, destination: DestinationReply? = nil, quiet: Bool = false,
                hrBpm: Double? = nil, hrZone: Int? = nil, hrState: HeartRateLinkState = .none, hr: HeartRateStatus = .none,
                caloriesMethod: CalorieMethod? = nil, climbRate: Double? = nil, workout: WorkoutStatusReply? = nil,
                battery: BatteryStatusReply? = nil, id: JSONValue? = nil) {
        self.time = time
        climbRateMPerH = climbRate
        self.state = state
        self.session = session
        let s = stats ?? SessionStats()
        activity = stats?.activity.rawValue
        elapsedS = s.elapsed
        movingS = s.moving
        distanceM = s.distance
        speedMps = s.speed
        paceSPerKm = s.pace.isFinite ? s.pace : nil
        avgSpeedMps = s.averageSpeed
        maxSpeedMps = s.maxSpeed
        steps = s.steps
        cadenceSpm = s.cadence
        elevationGainM = s.elevationGain
        elevationLossM = s.elevationLoss
        laps = s.laps
        self.gps = gps
        self.imu = imu
        self.baro = baro
        self.altitudeSource = altitudeSource
        altitudeShares = stats?.altitudeShares
        self.store = store
        self.lastTransition = lastTransition
        self.caloriesKcal = caloriesKcal
        self.nextBadge = nextBadge
        self.units = units
        self.course = course
        self.workout = workout
        self.home = home
        self.destination = destination
        self.quiet = quiet
        self.caloriesMethod = caloriesMethod
        self.hrBpm = hrBpm
        self.hrZone = hrZone
        self.hrState = hrState
        self.hr = hr
        self.battery = battery
        self.id = id
    }

    enum CodingKeys: String, CodingKey {
        case quiet, hrBpm = "hr_bpm", hrZone = "hr_zone", hrState = "hr_state", hr, caloriesMethod = "calories_method"
        case caloriesKcal = "calories_kcal", nextBadge = "next_badge"
        case cls = "class", time, state, session, activity, elapsedS = "elapsed_s", movingS = "moving_s",
             distanceM = "distance_m", speedMps = "speed_mps", paceSPerKm = "pace_s_per_km",
             avgSpeedMps = "avg_speed_mps", maxSpeedMps = "max_speed_mps", steps, cadenceSpm = "cadence_spm",
             elevationGainM = "elevation_gain_m", elevationLossM = "elevation_loss_m",
             climbRateMPerH = "climb_rate_m_per_h", laps, gps, imu, store,
             baro, altitudeSource = "altitude_source", altitudeShares = "altitude_shares",
             lastTransition = "last_transition", units, course, workout, home, destination, battery, id
    }
}

/// `{"class":"CONFIG","config":{...}}`: the effective configuration.
public struct ConfigReply: Codable, Sendable, Equatable {
    public var cls = "CONFIG"
    public var config: JSONValue
    public var id: JSONValue?

    public init(config: JSONValue, id: JSONValue? = nil) {
        self.config = config
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", config, id }
}
