/// Turns "is a position fix arriving?" into the session's `gps_lost` and
/// `gps_regained` moments. Only a loss after fixes had arrived counts, and
/// only a return after such a loss, so a session started before the first
/// fix (or just carried over a daemon restart) says nothing about it.
public struct GPSLossWatch: Sendable, Equatable {
    private var hadFix: Bool?
    private var lost = false

    public init() {}

    /// The event to record now, if any. `hasFix` is the engine's
    /// "a fix within the last 5 s"; outside a session everything resets.
    public mutating func update(hasFix: Bool, sessionActive: Bool) -> SessionEventKind? {
        guard sessionActive else {
            self = GPSLossWatch()
            return nil
        }
        guard let before = hadFix else {
            hadFix = hasFix
            return nil
        }
        hadFix = hasFix
        switch (before, hasFix) {
        case (true, false):
            lost = true
            return .gpsLost
        case (false, true) where lost:
            lost = false
            return .gpsRegained
        default:
            return nil
        }
    }
}
