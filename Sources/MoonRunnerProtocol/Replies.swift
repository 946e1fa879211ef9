import FoundationEssentials
import MoonRunnerCore

/// Protocol version announced in `VERSION`. Minor bumps add fields; major
/// bumps change or remove them. 1.4: the activities `trail_run`, `hike` and
/// `ride`; `STATUS.climb_rate_m_per_h`; `BADGES.activity` and `longest`.
/// 1.5: the terrain model: `altitude_source` `dem` and `mixed`, `altitude_shares`,
/// `dem_points`, the `terrain_lost` and `terrain_regained` events.
public enum ProtocolVersion {
    public static let major = 1
    public static let minor = 5
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

/// Health of the GPS side in `STATUS`.
public struct GPSStatus: Codable, Sendable, Equatable {
    /// connecting | nofix | ok | lost
    public var health: String
    /// best | better | average | bad | none (the seed app's signal grades)
    public var grade: String
    /// Fixes received since the daemon started.
    public var fixes: Int
    /// gpsd (re)connections since the daemon started.
    public var connects: Int

    public init(health: String, grade: String, fixes: Int, connects: Int) {
        self.health = health
        self.grade = grade
        self.fixes = fixes
        self.connects = connects
    }
}

/// Health of the IMU side in `STATUS`.
public struct IMUStatus: Codable, Sendable, Equatable {
    /// none (no IMU configured: `imu.source: none`) | ok | degraded | lost
    public var health: String
    public var samples: Int
    /// Samples refused as implausible.
    public var rejected: Int
    public var busErrors: Int
    public var overflows: Int
    /// FIFO resets (overflow, stuck or misaligned count) and device re-initialisations.
    public var fifoResets: Int
    public var reinitializations: Int
    /// The last fault, e.g. "initialisation failed: WHO_AM_I 0x42 ...".
    @NullCoded public var lastError: String?

    public init(health: String, samples: Int, rejected: Int, busErrors: Int, overflows: Int,
                fifoResets: Int = 0, reinitializations: Int = 0, lastError: String? = nil) {
        self.health = health
        self.samples = samples
        self.rejected = rejected
        self.busErrors = busErrors
        self.overflows = overflows
        self.fifoResets = fifoResets
        self.reinitializations = reinitializations
        self.lastError = lastError
    }

    enum CodingKeys: String, CodingKey {
        case health, samples, rejected, busErrors = "bus_errors", overflows, fifoResets = "fifo_resets",
             reinitializations, lastError = "last_error"
    }
}

/// Health of the barometer side in `STATUS`.
public struct BaroStatus: Codable, Sendable, Equatable {
    /// none (no barometer configured) | ok | degraded | lost
    public var health: String
    /// Readings used by the altitude fusion.
    public var samples: Int
    /// Readings refused: impossible pressure, out of order, frozen.
    public var rejected: Int
    /// Pressure jumps faster than anyone climbs, absorbed without a climb (a sealed case opened).
    public var levelShifts: Int
    public var busErrors: Int
    /// Device re-initialisations (after bus errors, a foreign chip id or stuck readings).
    public var reinitializations: Int
    /// "BMP280 at 0x76 on /dev/i2c-1", null before the first initialisation.
    @NullCoded public var device: String?
    /// The last fault, e.g. "readings stuck at 98241.2 Pa for 2 s; re-initialising".
    @NullCoded public var lastError: String?

    public init(health: String, samples: Int = 0, rejected: Int = 0, levelShifts: Int = 0, busErrors: Int = 0,
                reinitializations: Int = 0, device: String? = nil, lastError: String? = nil) {
        self.health = health
        self.samples = samples
        self.rejected = rejected
        self.levelShifts = levelShifts
        self.busErrors = busErrors
        self.reinitializations = reinitializations
        self.device = device
        self.lastError = lastError
    }

    /// No barometer configured.
    public static let none = BaroStatus(health: "none")

    enum CodingKeys: String, CodingKey {
        case health, samples, rejected, levelShifts = "level_shifts", busErrors = "bus_errors", reinitializations,
             device, lastError = "last_error"
    }
}

/// The heart-rate strap's side in `STATUS` (since protocol 1.2).
public struct HeartRateStatus: Codable, Sendable, Equatable {
    /// none (no strap configured) | ok | degraded (no bluetoothd, being retried) | lost
    public var health: String
    /// The strap: "Polar H10 (AA:BB:CC:DD:EE:FF)", a replayed file; null before one was found.
    @NullCoded public var device: String?
    /// Notifications received, and those that could not be read (too short, an RR list past the payload).
    public var notifications: Int
    public var malformed: Int
    /// Readings taken as heart rates, without one (no contact, 0), refused (outside 25–250 bpm).
    public var samples: Int
    public var missing: Int
    public var rejected: Int
    /// R–R intervals kept, and refused (outside 200–2500 ms).
    public var rrIntervals: Int
    public var rrRejected: Int
    /// Connections to the strap that delivered notifications.
    public var connects: Int
    /// The last fault, e.g. "bluetoothd is not on the system bus".
    @NullCoded public var lastError: String?

    public init(health: String, device: String? = nil, notifications: Int = 0, malformed: Int = 0, samples: Int = 0,
                missing: Int = 0, rejected: Int = 0, rrIntervals: Int = 0, rrRejected: Int = 0, connects: Int = 0,
                lastError: String? = nil) {
        self.health = health
        self.device = device
        self.notifications = notifications
        self.malformed = malformed
        self.samples = samples
        self.missing = missing
        self.rejected = rejected
        self.rrIntervals = rrIntervals
        self.rrRejected = rrRejected
        self.connects = connects
        self.lastError = lastError
    }

    /// No strap configured.
    public static let none = HeartRateStatus(health: "none")

    enum CodingKeys: String, CodingKey {
        case health, device, notifications, malformed, samples, missing, rejected, rrIntervals = "rr_intervals",
             rrRejected = "rr_rejected", connects, lastError = "last_error"
    }
}

/// Health of the store in `STATUS`.
public struct StoreStatus: Codable, Sendable, Equatable {
    /// ok | error
    public var health: String
    /// Rows waiting for the next commit.
    public var pending: Int
    @NullCoded public var lastError: String?

    public init(health: String, pending: Int, lastError: String?) {
        self.health = health
        self.pending = pending
        self.lastError = lastError
    }

    enum CodingKeys: String, CodingKey { case health, pending, lastError = "last_error" }
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
public struct StatusReply: Codable, Sendable, Equatable {
    public var cls = "STATUS"
    /// Engine-clock time of this status, UNIX seconds.
    public var time: Double
    /// idle | recording | autoPaused | paused | stopped
    public var state: String
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
    /// barometric | dem | gps: where the altitude (and the climb) comes from right now.
    public var altitudeSource: String
    /// The share of the session's track each source gave the altitude of so far (since protocol 1.5;
    /// null while idle).
    @NullCoded public var altitudeShares: AltitudeShares?
    public var store: StoreStatus
    @NullCoded public var lastTransition: TransitionInfo?
    /// Energy so far (ACSM equations, configured body mass).
    public var caloriesKcal: Double
    /// The next distance badge and the distance left to it, null when idle or all are passed.
    @NullCoded public var nextBadge: NextBadge?
    /// metric | imperial (the daemon's configured display units)
    public var units: String
    /// The course being followed, null when none.
    @NullCoded public var course: CourseStatusReply?
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
    @NullCoded public var caloriesMethod: String?
    /// The heart rate now, bpm; null without a strap, without skin contact or 5 s without a notification.
    @NullCoded public var hrBpm: Double?
    /// Its zone, 1–5 (with hysteresis); null without a heart rate.
    @NullCoded public var hrZone: Int?
    /// none | searching | connected | lost (since protocol 1.2; absent from older daemons).
    public var hrState: String?
    /// The strap's health and counters (since protocol 1.2).
    public var hr: HeartRateStatus?
    public var id: JSONValue?

    public init(time: Double, state: String, session: Int64?, stats: SessionStats?, gps: GPSStatus,
                imu: IMUStatus, baro: BaroStatus = .none, altitudeSource: String = "gps", store: StoreStatus,
                lastTransition: TransitionInfo?, units: String,
                caloriesKcal: Double = 0, nextBadge: NextBadge? = nil, course: CourseStatusReply? = nil,
                home: HomeReply? = nil, destination: DestinationReply? = nil, quiet: Bool = false,
                hrBpm: Double? = nil, hrZone: Int? = nil, hrState: String = "none", hr: HeartRateStatus = .none,
                caloriesMethod: String? = nil, climbRate: Double? = nil, id: JSONValue? = nil) {
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
        self.home = home
        self.destination = destination
        self.quiet = quiet
        self.caloriesMethod = caloriesMethod
        self.hrBpm = hrBpm
        self.hrZone = hrZone
        self.hrState = hrState
        self.hr = hr
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
             lastTransition = "last_transition", units, course, home, destination, id
    }
}

/// `{"class":"EVENT",...}`: sent to watchers as things happen.
public struct EventReply: Codable, Sendable, Equatable {
    public var cls = "EVENT"
    @NullCoded public var session: Int64?
    /// start | pause | resume | autopause | autoresume | lap | stop | badge | fault |
    /// off_course | on_course | course_to_go | course_finished | arrived | split | gps_lost | gps_regained |
    /// hr_connected | hr_lost | hr_zone | turn_ahead | turn_now
    public var event: String
    public var time: Double
    public var detectedAt: Double
    public var cause: String
    public var state: String
    @NullCoded public var detail: String?
    /// The figures of a `split` event as `SESSION` will list them (null for other events).
    @NullCoded public var split: SplitInfo?
    /// The cue of a `turn_ahead` or `turn_now` (absent from other events; since 1.3).
    public var cue: CueEvent?

    public init(session: Int64?, event: SessionEvent, split: Split? = nil) {
        self.session = session
        self.event = event.kind.rawValue
        time = event.time
        detectedAt = event.detectedAt
        cause = event.cause
        state = event.state.rawValue
        detail = event.detail
        self.split = split.map(SplitInfo.init)
        cue = event.cue
    }

    enum CodingKeys: String, CodingKey {
        case cls = "class", session, event, time, detectedAt = "detected_at", cause, state, detail, split, cue
    }
}

/// One session in a list.
public struct SessionInfo: Codable, Sendable, Equatable {
    public var id: Int64
    public var activity: String
    /// recording | autoPaused | paused | stopped
    public var state: String
    public var startTime: Double
    @NullCoded public var endTime: Double?
    public var distanceM: Double
    public var elapsedS: Double
    public var movingS: Double
    public var steps: Int
    /// True when the daemon died while recording and the session was closed on restart.
    public var interrupted: Bool

    public init(id: Int64, activity: String, state: String, startTime: Double, endTime: Double?,
                distanceM: Double, elapsedS: Double, movingS: Double, steps: Int, interrupted: Bool) {
        self.id = id
        self.activity = activity
        self.state = state
        self.startTime = startTime
        self.endTime = endTime
        self.distanceM = distanceM
        self.elapsedS = elapsedS
        self.movingS = movingS
        self.steps = steps
        self.interrupted = interrupted
    }

    enum CodingKeys: String, CodingKey {
        case id, activity, state, startTime = "start_time", endTime = "end_time", distanceM = "distance_m",
             elapsedS = "elapsed_s", movingS = "moving_s", steps, interrupted
    }
}

/// `{"class":"SESSIONS","sessions":[...]}`, newest first.
public struct SessionsReply: Codable, Sendable, Equatable {
    public var cls = "SESSIONS"
    public var sessions: [SessionInfo]
    public var id: JSONValue?

    public init(sessions: [SessionInfo], id: JSONValue? = nil) {
        self.sessions = sessions
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", sessions, id }
}

/// `{"class":"SESSION",...}`: one session in full.
public struct SessionReply: Codable, Sendable, Equatable {
    public var cls = "SESSION"
    public var session: SessionInfo
    public var stats: SessionStats
    public var pauses: [PauseInterval]
    public var events: [EventReply]
    public var points: Int
    /// Splits per km and mile, laps, calories and best pace.
    public var figures: SessionFigures
    /// The course the session followed, null when none.
    @NullCoded public var course: SessionCourseReply?
    public var id: JSONValue?

    public init(session: SessionInfo, stats: SessionStats, pauses: [PauseInterval], events: [EventReply],
                points: Int, figures: SessionFigures, course: SessionCourseReply? = nil, id: JSONValue? = nil) {
        self.session = session
        self.stats = stats
        self.pauses = pauses
        self.events = events
        self.points = points
        self.figures = figures
        self.course = course
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", session, stats, pauses, events, points, figures, course, id }
}

/// `{"class":"DELETED","session":N}`.
public struct DeletedReply: Codable, Sendable, Equatable {
    public var cls = "DELETED"
    public var session: Int64
    public var id: JSONValue?

    public init(session: Int64, id: JSONValue? = nil) {
        self.session = session
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", session, id }
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
