/// What the badge rules need of a finished session.
public struct BadgeSessionSummary: Sendable, Equatable, Codable {
    public var id: Int64
    /// Metres.
    public var distance: Double
    /// Moving seconds.
    public var moving: Double
    /// Engine clock (UNIX seconds): sessions are judged in this order.
    public var startTime: Double
    /// Badges and records are kept per activity: a ride earns no running badge.
    public var activity: Activity

    public init(id: Int64, distance: Double, moving: Double, startTime: Double, activity: Activity = .run) {
        self.id = id
        self.distance = distance
        self.moving = moving
        self.startTime = startTime
        self.activity = activity
    }

    private enum CodingKeys: String, CodingKey { case id, distance, moving, startTime, activity }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int64.self, forKey: .id)
        distance = try c.decode(Double.self, forKey: .distance)
        moving = try c.decode(Double.self, forKey: .moving)
        startTime = try c.decode(Double.self, forKey: .startTime)
        activity = try c.decodeIfPresent(Activity.self, forKey: .activity) ?? .run
    }

    /// Average speed over moving time, m/s (0 when it never moved).
    public var averageSpeed: Double { moving > 0 && distance > 0 ? distance / moving : 0 }
}

/// The level reached on one badge.
public enum BadgeTier: String, Sendable, Codable, CaseIterable, Comparable {
    case earned, silver, gold

    private var rank: Int {
        switch self {
        case .earned: return 0
        case .silver: return 1
        case .gold: return 2
        }
    }

    public static func < (a: BadgeTier, b: BadgeTier) -> Bool { a.rank < b.rank }
}

/// One badge and the sessions that earned it and its upgrades.
public struct BadgeStatus: Sendable, Equatable, Codable {
    public var badge: Badge
    /// The first session longer than the badge distance.
    public var earned: BadgeSessionSummary?
    /// The first later qualifying session at least `silverFactor` as fast as `earned`.
    public var silver: BadgeSessionSummary?
    /// The first later qualifying session at least `goldFactor` as fast as `earned`.
    public var gold: BadgeSessionSummary?
    /// The fastest qualifying session.
    public var best: BadgeSessionSummary?

    public var tier: BadgeTier? {
        if gold != nil { return .gold }
        if silver != nil { return .silver }
        return earned != nil ? .earned : nil
    }

    /// Average speed (m/s) a session needs for silver, nil before the badge is earned.
    public var silverSpeed: Double? { earned.map { $0.averageSpeed * BadgeBoard.silverFactor } }
    /// Average speed (m/s) a session needs for gold, nil before the badge is earned.
    public var goldSpeed: Double? { earned.map { $0.averageSpeed * BadgeBoard.goldFactor } }
}

/// The badge rules of the seed app applied to a history of sessions:
/// a badge is earned by the first session (by start time) longer than its
/// distance; silver goes to a later such session at least 5 % faster
/// (average speed over moving time) than the earning one, gold to one at
/// least 10 % faster; the best is the fastest such session.
public struct BadgeBoard: Sendable, Equatable {
    public static let silverFactor = 1.05
    public static let goldFactor = 1.10
    /// Relative slack so that "exactly 5 % faster" survives rounding.
    static let tolerance = 1e-9

    public let ladder: BadgeLadder
    /// One per badge of the ladder, in ladder order.
    public let statuses: [BadgeStatus]
    /// The longest session (the first of equals): a record of its own (the longest ride).
    public let longest: BadgeSessionSummary?

    /// The board of `sessions` (the caller gives one activity's: `init(activity:sessions:)`).
    public init(ladder: BadgeLadder = .solarSystem, sessions: [BadgeSessionSummary]) {
        self.ladder = ladder
        let ordered = sessions.sorted { ($0.startTime, $0.id) < ($1.startTime, $1.id) }
        statuses = ladder.badges.map { BadgeBoard.status(of: $0, sessions: ordered) }
        longest = ordered.reduce(nil) { best, s in s.distance > (best?.distance ?? 0) ? s : best }
    }

    /// One activity's board: its own ladder over its own sessions.
    public init(activity: Activity, sessions: [BadgeSessionSummary]) {
        self.init(ladder: activity.profile.ladder, sessions: sessions.filter { $0.activity == activity })
    }

    private static func status(of badge: Badge, sessions: [BadgeSessionSummary]) -> BadgeStatus {
        var s = BadgeStatus(badge: badge)
        for run in sessions where run.distance > badge.distance {
            guard let earned = s.earned else {
                s.earned = run
                s.best = run
                continue
            }
            let speed = run.averageSpeed, base = earned.averageSpeed
            if s.silver == nil, speed >= base * silverFactor * (1 - tolerance) { s.silver = run }
            if s.gold == nil, speed >= base * goldFactor * (1 - tolerance) { s.gold = run }
            if let best = s.best, speed > best.averageSpeed { s.best = run }
        }
        return s
    }

    /// The status of one badge by id.
    public func status(id: String) -> BadgeStatus? { statuses.first { $0.badge.id == id } }

    /// The better tiers `finished` reaches on badges that earlier sessions
    /// earned: gold where it is the first 10 % faster, else silver where it is
    /// the first 5 % faster (earning is told live, when the distance is passed).
    public static func upgrades(by finished: BadgeSessionSummary, after earlier: [BadgeSessionSummary],
                                ladder: BadgeLadder = .solarSystem) -> [(badge: Badge, tier: BadgeTier)] {
        let before = BadgeBoard(ladder: ladder, sessions: earlier)
        let after = BadgeBoard(ladder: ladder, sessions: earlier + [finished])
        return zip(before.statuses, after.statuses).compactMap { old, new in
            if new.gold?.id == finished.id && old.gold == nil { return (new.badge, .gold) }
            if new.silver?.id == finished.id && old.silver == nil { return (new.badge, .silver) }
            return nil
        }
    }

    /// Badges a live session at `current` metres has just passed (coming
    /// from `previous`) that no recorded session had earned: the moments
    /// worth an EVENT.
    public func newlyEarned(from previous: Double, to current: Double) -> [Badge] {
        ladder.passed(from: previous, to: current).filter { badge in
            status(id: badge.id)?.earned == nil
        }
    }
}

extension BadgeStatus {
    public init(badge: Badge) {
        self.badge = badge
    }
}
