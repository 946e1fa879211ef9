import FoundationEssentials
import MoonRunnerCore

/// A session as the badge table shows it.
public struct BadgeRun: Codable, Sendable, Equatable {
    public var session: Int64
    public var startTime: Double
    public var distanceM: Double
    public var movingS: Double
    public var avgSpeedMps: Double

    public init(_ s: BadgeSessionSummary) {
        session = s.id
        startTime = s.startTime
        distanceM = s.distance
        movingS = s.moving
        avgSpeedMps = s.averageSpeed
    }

    enum CodingKeys: String, CodingKey {
        case session, startTime = "start_time", distanceM = "distance_m", movingS = "moving_s", avgSpeedMps = "avg_speed_mps"
    }
}

/// One badge of the ladder and how far the wearer got with it.
public struct BadgeInfo: Codable, Sendable, Equatable {
    /// Stable key, e.g. `moon`.
    public var badge: String
    public var name: String
    /// A session must be longer than this to earn the badge.
    public var distanceM: Double
    public var information: String
    /// `earned`, `silver`, `gold`, or null while not earned.
    @NullCoded public var tier: String?
    /// The first session longer than the badge distance.
    @NullCoded public var earned: BadgeRun?
    /// The first later one at least 5 % faster, and at least 10 % faster.
    @NullCoded public var silver: BadgeRun?
    @NullCoded public var gold: BadgeRun?
    /// The fastest session longer than the badge distance.
    @NullCoded public var best: BadgeRun?
    /// Average speeds a later session needs for silver and gold (null before earning).
    @NullCoded public var silverSpeedMps: Double?
    @NullCoded public var goldSpeedMps: Double?

    public init(_ s: BadgeStatus) {
        badge = s.badge.id
        name = s.badge.name
        distanceM = s.badge.distance
        information = s.badge.information
        tier = s.tier?.rawValue
        earned = s.earned.map(BadgeRun.init)
        silver = s.silver.map(BadgeRun.init)
        gold = s.gold.map(BadgeRun.init)
        best = s.best.map(BadgeRun.init)
        silverSpeedMps = s.silverSpeed
        goldSpeedMps = s.goldSpeed
    }

    enum CodingKeys: String, CodingKey {
        case badge, name, distanceM = "distance_m", information, tier, earned, silver, gold, best,
             silverSpeedMps = "silver_speed_mps", goldSpeedMps = "gold_speed_mps"
    }
}

/// The badge ahead of a live session.
public struct NextBadge: Codable, Sendable, Equatable {
    public var badge: String
    public var name: String
    public var distanceM: Double
    /// Metres the live session still has to cover.
    public var leftM: Double

    public init(badge: Badge, left: Double) {
        self.badge = badge.id
        name = badge.name
        distanceM = badge.distance
        leftM = left
    }

    enum CodingKeys: String, CodingKey { case badge, name, distanceM = "distance_m", leftM = "left_m" }
}

/// `{"class":"BADGES",...}`: one activity's badge ladder with the sessions that
/// earned each badge, its longest session, and the next badge of the session
/// being recorded. Badges are kept per activity.
public struct BadgesReply: Codable, Sendable, Equatable {
    public var cls = "BADGES"
    /// Whose badges: the live session's activity, else the last session's (or the configured one).
    public var activity: String
    /// Shortest first.
    public var badges: [BadgeInfo]
    /// The activity's longest session (the longest ride); null before any.
    @NullCoded public var longest: BadgeRun?
    /// The live session `next` refers to; null when none is recording.
    @NullCoded public var session: Int64?
    /// The next badge distance ahead of the live session; null when idle or beyond the last badge.
    @NullCoded public var next: NextBadge?
    public var id: JSONValue?

    public init(activity: String = Activity.run.rawValue, badges: [BadgeInfo], longest: BadgeRun? = nil,
                session: Int64?, next: NextBadge?, id: JSONValue? = nil) {
        self.activity = activity
        self.badges = badges
        self.longest = longest
        self.session = session
        self.next = next
        self.id = id
    }

    /// The reply for an activity's badge board and, if one is recording, the live session and its distance.
    public init(activity: Activity, board: BadgeBoard, live: (session: Int64, distance: Double)?, id: JSONValue? = nil) {
        self.activity = activity.rawValue
        badges = board.statuses.map(BadgeInfo.init)
        longest = board.longest.map(BadgeRun.init)
        session = live?.session
        let progress = live.map { board.ladder.progress(distance: $0.distance) }
        next = progress.flatMap { p in p.next.map { NextBadge(badge: $0, left: p.distanceLeft) } }
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case cls = "class", activity, badges, longest, session, next, id }

    /// Replies of daemons from before activity profiles have neither `activity` nor `longest`: a run's board.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        cls = try c.decode(String.self, forKey: .cls)
        activity = try c.decodeIfPresent(String.self, forKey: .activity) ?? Activity.run.rawValue
        badges = try c.decode([BadgeInfo].self, forKey: .badges)
        _longest = try c.decodeIfPresent(NullCoded<BadgeRun>.self, forKey: .longest) ?? NullCoded(wrappedValue: nil)
        _session = try c.decodeIfPresent(NullCoded<Int64>.self, forKey: .session) ?? NullCoded(wrappedValue: nil)
        _next = try c.decodeIfPresent(NullCoded<NextBadge>.self, forKey: .next) ?? NullCoded(wrappedValue: nil)
        id = try c.decodeIfPresent(JSONValue.self, forKey: .id)
    }
}
