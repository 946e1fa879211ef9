/// Why auto-pause paused or resumed, as the event's `cause` names it: a
/// plain enum, so that a decision is a trivial value (no string to copy or
/// release on the per-sample path, where nearly every answer is "none").
public enum AutoPauseCause: String, Sendable, Equatable, CaseIterable {
    /// Paused: no step for the dwell and the body still (with an IMU).
    case still
    /// Paused: no step, fast rotation or corroborated GPS motion for the dwell (with an IMU).
    case noSteps = "no_steps"
    /// Paused: neither steps nor GPS motion for the dwell (without an IMU).
    case noMotion = "no_motion"
    /// Paused: on wheels, the speed stayed under the activity's floor.
    case slow
    /// Paused as the session ends: its tail showed no motion.
    case stillAtStop = "still_at_stop"
    /// Resumed by steps (vetted by the GPS where the activity asks).
    case steps
    /// Resumed by the receiver's speed.
    case gpsSpeed = "gps_speed"
    /// Resumed by GPS progress without an IMU.
    case gpsMotion = "gps_motion"
    /// Resumed by a steady climb or descent in the altitude.
    case climb
}
