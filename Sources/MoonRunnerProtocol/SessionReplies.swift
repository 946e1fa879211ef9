import MoonRunnerCore

/// One session in a list.
public struct SessionInfo: Codable, Sendable, Equatable {
    public var id: Int64
    public var activity: String
    public var state: SessionState
    public var startTime: Double
    @NullCoded public var endTime: Double?
    public var distanceM: Double
    public var elapsedS: Double
    public var movingS: Double
    public var steps: Int
    /// True when the daemon died while recording and the session was closed on restart.
    public var interrupted: Bool

    public init(id: Int64, activity: String, state: SessionState, startTime: Double, endTime: Double?,
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
