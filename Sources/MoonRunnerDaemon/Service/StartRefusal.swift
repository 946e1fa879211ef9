import MoonRunnerCore

/// Why `?START` is refused while a session is open. Nothing of the request is
/// applied: the open session goes on as the activity it started as (its
/// profile was taken at its start), so an activity is never half changed.
struct StartRefusal {
    let message: String

    /// Nil when a session may start now.
    init?(asked: Activity, current: Activity, state: SessionState, starting: Bool) {
        if starting {
            message = "a session is being started; ?STATUS; says when"
        } else if state.isActive {
            let open = "a \(current.profile.sport.noun) is already \(state.rawValue)"
            message = asked == current ? "\(open); ?STOP; it first"
                : "\(open), and a session keeps the activity it started as: ?STOP; it, then "
                    + "?START={\"activity\":\"\(asked.rawValue)\"}; anew"
        } else {
            return nil
        }
    }
}
