/// The activities' auto-pause settings by name (`analyze --activity-option
/// KEY=VALUE`), so that an evaluation can vary them without rebuilding (the
/// cross-validation of `eval_activities.py --cv`). The daemon never sets any.
public struct ActivityTuning: Sendable, Equatable {
    public struct Invalid: Error {}

    private var values: [String: Double] = [:]

    public init() {}

    public static let keys = ["creep_speed_mps", "hike_dwell_s", "wheel_dwell_s", "wheel_speed_mps"]

    /// Takes one `KEY=VALUE` (a known key, a number not below 0).
    public mutating func set(_ option: String) throws(Invalid) {
        let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, Self.keys.contains(parts[0]), let value = Double(parts[1]), value.isFinite,
              value >= 0 else { throw Invalid() }
        values[parts[0]] = value
    }

    /// The profile's settings with the tuned values in place of its own.
    func apply(to autoPause: inout AutoPauseConfig, gps: inout GPSFilterConfig, activity: Activity) {
        if let v = values["creep_speed_mps"] { gps.creepSpeed = v }
        if activity == .hike, let v = values["hike_dwell_s"] { autoPause.pauseDwell = v }
        if var wheels = autoPause.wheels {
            if let v = values["wheel_speed_mps"] { wheels.below = v }
            if let v = values["wheel_dwell_s"] { wheels.dwell = v }
            autoPause.wheels = wheels
        }
    }
}
