import MoonRunnerCore

/// Steps counted in one whole second of a session, with the cadence then.
public struct StepSecond: Sendable, Equatable {
    /// Engine-clock second (floor of the step times).
    public var second: Int64
    public var steps: Int
    public var cadence: Double

    public init(second: Int64, steps: Int, cadence: Double) {
        self.second = second
        self.steps = steps
        self.cadence = cadence
    }
}

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

/// Everything accumulated since the last commit, written in one transaction.
public struct CommitBatch: Sendable {
    public var sessionID: Int64
    public var snapshot: SessionSnapshot
    public var points: [TrackPoint] = []
    public var rejected: [RejectedFix] = []
    public var events: [SessionEvent] = []
    public var stepSeconds: [StepSecond] = []
    /// Set when the session ended.
    public var endTime: Double?

    public init(sessionID: Int64, snapshot: SessionSnapshot) {
        self.sessionID = sessionID
        self.snapshot = snapshot
    }

    public var rowCount: Int { points.count + rejected.count + events.count + stepSeconds.count }
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
