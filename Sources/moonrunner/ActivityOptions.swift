import MoonRunnerConfig
import MoonRunnerCore

/// `analyze --activity-option KEY=VALUE`: the activities' auto-pause settings
/// varied by name, so that an evaluation can cross-validate them without
/// rebuilding (`Tests/Tools/eval_activities.py --cv`). Only `analyze` takes
/// them: the daemon runs the profiles' own (`ActivityProfile+Table.swift`).
struct ActivityOptions: Sendable {
    /// `GPSFilterConfig.creepSpeed`, m/s.
    var creepSpeed: Double?
    /// A hike's pause dwell (its profile's 15 s), seconds.
    var hikeDwell: Double?
    /// A ride's pause speed and dwell (its profile's 1 m/s for 3 s).
    var wheelSpeed: Double?
    var wheelDwell: Double?

    static let settings = NamedSettings<ActivityOptions>([
        "creep_speed_mps": { $0.creepSpeed = $1 },
        "hike_dwell_s": { $0.hikeDwell = $1 },
        "wheel_dwell_s": { $0.wheelDwell = $1 },
        "wheel_speed_mps": { $0.wheelSpeed = $1 },
    ])

    /// `profile` with these settings in place of its own, and `config` with
    /// those that are the engine's.
    func apply(to profile: ActivityProfile, config: inout EngineConfig) -> ActivityProfile {
        if let creepSpeed { config.gps.creepSpeed = creepSpeed }
        switch profile.pause {
        case let .onFoot(still, _, confirm):
            guard profile.activity == .hike, let hikeDwell else { return profile }
            // A profile's dwell is a floor over the configured one: the setting is the dwell itself.
            config.autoPause.pauseDwell = min(config.autoPause.pauseDwell, hikeDwell)
            return profile.withPause(.onFoot(stillDwell: still, pauseDwell: hikeDwell, confirmSteps: confirm))
        case let .wheels(below, dwell):
            return profile.withPause(.wheels(below: wheelSpeed ?? below, dwell: wheelDwell ?? dwell))
        }
    }
}
