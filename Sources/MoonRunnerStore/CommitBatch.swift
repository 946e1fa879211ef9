import MoonRunnerCore

/// Everything accumulated since the last commit, written in one transaction.
public struct CommitBatch: Sendable {
    public var sessionID: Int64
    public var snapshot: SessionSnapshot
    public var points: [TrackPoint] = []
    public var rejected: [RejectedFix] = []
    public var events: [SessionEvent] = []
    public var stepSeconds: [StepSecondSample] = []
    /// Heart-rate readings (NaN: missing) and R–R intervals.
    public var heartRate: [HeartRatePoint] = []
    public var rrIntervals: [RRInterval] = []
    /// Set when the session ended.
    public var endTime: Double?

    public init(sessionID: Int64, snapshot: SessionSnapshot) {
        self.sessionID = sessionID
        self.snapshot = snapshot
    }

    public var rowCount: Int {
        points.count + rejected.count + events.count + stepSeconds.count + heartRate.count + rrIntervals.count
    }

    /// Takes a later batch of the same session in: its rows after these, and its
    /// snapshot and end instead of these, which is what the database keeps when it
    /// applies the two in order (rows are inserted, step seconds add up, the session
    /// row is overwritten). The store holds commits this way until the database takes
    /// them in, so it keeps one snapshot, not one per commit: 900 of them in a half
    /// hour at one commit every 2 s, 2.5 MB an hour that stayed resident.
    public mutating func absorb(_ later: CommitBatch) {
        points += later.points
        rejected += later.rejected
        events += later.events
        stepSeconds += later.stepSeconds
        heartRate += later.heartRate
        rrIntervals += later.rrIntervals
        snapshot = later.snapshot
        endTime = later.endTime ?? endTime
    }

    /// Puts a batch that failed to commit back in front of this one (what
    /// came since): its rows first, then these, and this snapshot and end, as
    /// if the failed commit had never been taken out. Nothing is lost and
    /// nothing is written twice, so the next commit retries it whole.
    public mutating func putBack(_ failed: CommitBatch) {
        var merged = failed
        merged.absorb(self)
        self = merged
    }
}
