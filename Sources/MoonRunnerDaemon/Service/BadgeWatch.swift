import MoonRunnerCore
import MoonRunnerStore

/// Turns the live distance into the session's badge moments: each badge
/// distance passed is told once, "earned" when no finished session had passed
/// it before (the first time is worth more) and "distance" otherwise; at the
/// stop, the silver and gold the whole session reached. Holds the finished
/// sessions the badge board is made of. Distances in metres, as the engine
/// counts them; nothing here reads a clock.
struct BadgeWatch: Sendable {
    /// A badge distance the live session has just passed, and why it is told.
    struct Passing: Sendable, Equatable {
        var badge: Badge
        /// "earned" or "distance" (the event's cause).
        var cause: String
    }

    /// The activity whose badges are told: the live session's (the last one's, or the configured one, while idle).
    private(set) var activity: Activity
    /// Finished sessions of every activity; each activity's board is made of its own.
    var sessions: [BadgeSessionSummary]
    /// The live distance up to which badges have been told.
    private(set) var told = 0.0

    init(activity: Activity = .run, sessions: [BadgeSessionSummary] = []) {
        self.activity = activity
        self.sessions = sessions
    }

    /// The activity's ladder.
    var ladder: BadgeLadder { activity.profile.ladder }

    /// The board of the activity's finished sessions.
    var board: BadgeBoard { BadgeBoard(activity: activity, sessions: sessions) }

    /// A session of `activity` starts at `distance` metres: 0, or where a session resumed
    /// after a restart had got to (its badges were told before the restart).
    mutating func start(_ activity: Activity, at distance: Double = 0) {
        self.activity = activity
        told = distance
    }

    /// The badges passed since the last call, shortest first (usually none).
    /// Outside a session nothing is told and nothing is forgotten.
    mutating func update(distance: Double, sessionActive: Bool) -> [Passing] {
        guard sessionActive, distance > told else { return [] }
        let passed = ladder.passed(from: told, to: distance)
        guard !passed.isEmpty else {
            told = distance
            return []
        }
        let firsts = board.newlyEarned(from: told, to: distance)
        told = distance
        return passed.map { Passing(badge: $0, cause: firsts.contains($0) ? "earned" : "distance") }
    }

    /// The session stopped: the better tiers it reached (silver and gold need
    /// the whole session's average speed), and from now on it counts as finished.
    mutating func finish(_ session: BadgeSessionSummary) -> [(badge: Badge, tier: BadgeTier)] {
        let upgrades = BadgeBoard.upgrades(by: session, after: sessions.filter { $0.activity == session.activity },
                                           ladder: session.activity.profile.ladder)
        sessions.append(session)
        return upgrades
    }
}

extension BadgeSessionSummary {
    /// A stored session as the badge rules judge it, its start in UTC.
    init(_ s: StoredSession) {
        self.init(id: s.id, distance: s.snapshot.stats.distance, moving: s.snapshot.stats.moving,
                  startTime: s.startTime + (s.snapshot.utcOffset ?? 0), activity: s.activity)
    }
}
