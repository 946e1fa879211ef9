/// Everything that differs between activities, in one place.
///
/// A session takes its profile once, when it starts (`activity.profile`),
/// and keeps it to its end; the engine, the store, the exports, the web app
/// and the announcer read the rule they need from it and never ask which
/// activity it is. The values, and why each is what it is, are in
/// `ActivityProfile+Table.swift`.
public struct ActivityProfile: Sendable, Equatable {
    public let activity: Activity
    /// On foot: steps are counted (cadence, the step detector's evidence for
    /// auto-pause, stride cadence in the exports). A rider's pedalling is no step.
    public let countsSteps: Bool
    /// The GPS filter's implied-speed gate, m/s; nil keeps the configured
    /// on-foot one (`gps_filter.max_speed_mps`, 10.27 m/s: the sprint record).
    public let maxSpeed: Double?
    /// White-acceleration noise of the filter's motion model, m/s^1.5 (how
    /// quickly the speed may change); nil keeps the configured one.
    public let accelerationNoise: Double?
    /// When the session pauses by itself.
    public let pause: PauseRule
    /// How the energy is estimated when no heart rate covers the session.
    public let calories: CalorieEquation
    /// Shown as a speed (km/h, mph) rather than a pace (min/km, min/mi).
    public let showsSpeed: Bool
    /// Display units (km or mi) in one split.
    public let splitUnits: Int
    /// The badges this activity earns; its history and records are its own.
    public let ladder: BadgeLadder
    /// How the sport is named in the files other programs read.
    public let sport: SportNames
    /// The climb rate (m/h) is shown live and said at each split.
    public let tellsClimbRate: Bool

    /// When a session of this activity pauses by itself.
    public enum PauseRule: Sendable, Equatable {
        /// On foot (`AutoPauseDetector`): steps and the body's stillness with an
        /// IMU, GPS motion, slow steady progress and the climb without. The
        /// dwells are floors over the configured ones, seconds; with
        /// `confirmSteps` a trusted Doppler speed vets the steps (`StepConfirmation`).
        case onFoot(stillDwell: Double, pauseDwell: Double, confirmSteps: Bool)
        /// On wheels (`AutoPauseDetector` with `WheelPause`): the receiver's
        /// speed below `below` m/s for `dwell` seconds pauses, above it resumes.
        case wheels(below: Double, dwell: Double)
    }

    /// The names of the sport in the files MoonRunner writes, as each peer
    /// reads them (Strava, Garmin Connect and the rest file an upload by them).
    public struct SportNames: Sendable, Equatable {
        /// FIT `sport` and `sub_sport` (Garmin FIT SDK profile: running 1,
        /// cycling 2, walking 11, hiking 17; generic 0, trail 3, road 7).
        public let fitSport: UInt8
        public let fitSubSport: UInt8
        /// TCX `Activity/@Sport`: the schema knows only Running, Biking and Other.
        public let tcx: String
        /// GPX `trk/type`, as Garmin Connect and Strava write and read it.
        public let gpx: String
        /// The word in a title ("MoonRunner hike 12") and on the history pages.
        public let noun: String
    }

    /// This profile with another pause rule, for an evaluation that varies the
    /// table's dwells and speeds without rebuilding (`moonrunner analyze --activity-option`).
    public func withPause(_ rule: PauseRule) -> ActivityProfile {
        ActivityProfile(activity: activity, countsSteps: countsSteps, maxSpeed: maxSpeed,
                        accelerationNoise: accelerationNoise, pause: rule, calories: calories, showsSpeed: showsSpeed,
                        splitUnits: splitUnits, ladder: ladder, sport: sport, tellsClimbRate: tellsClimbRate)
    }

    /// The display units in one split: the split's length in metres.
    public func splitLength(_ units: UnitSystem) -> Double { Double(splitUnits) * units.metresPerUnit }

    /// The GPS filter's settings for this activity, from the configured ones.
    public func gpsConfig(_ base: GPSFilterConfig) -> GPSFilterConfig {
        var c = base
        if let maxSpeed { c.maxSpeed = maxSpeed }
        if let accelerationNoise { c.accelerationNoise = accelerationNoise }
        return c
    }

    /// The auto-pause settings for this activity, from the configured ones.
    public func autoPauseConfig(_ base: AutoPauseConfig) -> AutoPauseConfig {
        var c = base
        switch pause {
        case let .onFoot(still, dwell, confirm):
            c.stillDwell = max(c.stillDwell, still)
            c.pauseDwell = max(c.pauseDwell, dwell)
            c.gpsConfirmsSteps = confirm
            c.wheels = nil
        case let .wheels(below, dwell):
            c.wheels = WheelPause.Rule(below: below, dwell: dwell)
        }
        return c
    }
}

extension Activity {
    /// The activity's rules (see `ActivityProfile+Table.swift`).
    public var profile: ActivityProfile { ActivityProfile.table(self) }
}
