import MoonRunnerCore

/// A fix the filter refused, kept with its reason for diagnosis.
public struct RejectedFix: Sendable, Equatable {
    public var time: Double
    public var fix: GPSFix
    public var reason: FixRejection

    public init(time: Double, fix: GPSFix, reason: FixRejection) {
        self.time = time
        self.fix = fix
        self.reason = reason
    }
}

/// A session row.
public struct StoredSession: Sendable, Equatable {
    public var id: Int64
    public var activity: Activity
    public var state: SessionState
    public var startTime: Double
    public var endTime: Double?
    public var updatedAt: Double
    public var interrupted: Bool
    public var snapshot: SessionSnapshot
}
