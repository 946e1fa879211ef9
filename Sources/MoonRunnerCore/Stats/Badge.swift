/// A distance badge, named after a body of the solar system.
public struct Badge: Sendable, Equatable, Hashable, Codable {
    /// Stable key ("moon").
    public var id: String
    public var name: String
    /// A session must be longer than this many metres to earn the badge.
    public var distance: Double
    public var information: String

    public init(id: String, name: String, distance: Double, information: String) {
        self.id = id
        self.name = name
        self.distance = distance
        self.information = information
    }
}

/// The ordered list of badges, shortest first, and the questions a running
/// session asks of it: which badge is next, how far to it, did we just pass one.
///
/// The default ladder (`solarSystem`) is a trip outward from the Moon, every
/// rung a distance people actually train for: 1 km (a first outing), 3, 5
/// (parkrun), 10 (the road race), 15, the half marathon, 30 (where marathon
/// training gets serious), the marathon, 50 (the first ultra) and 100 km.
public struct BadgeLadder: Sendable, Equatable {
    /// Sorted by distance, ascending.
    public let badges: [Badge]

    public init(badges: [Badge]) {
        self.badges = badges.sorted { $0.distance < $1.distance }
    }

    public static let solarSystem = BadgeLadder(badges: [
        Badge(id: "moon", name: "Moon", distance: 1_000,
              information: "One small step: your first kilometre."),
        Badge(id: "mercury", name: "Mercury", distance: 3_000,
              information: "Quick as the innermost planet: 3 km."),
        Badge(id: "venus", name: "Venus", distance: 5_000,
              information: "The classic 5 K, parkrun distance."),
        Badge(id: "mars", name: "Mars", distance: 10_000,
              information: "The red planet and the 10 K road race."),
        Badge(id: "ceres", name: "Ceres", distance: 15_000,
              information: "Through the asteroid belt: 15 km."),
        Badge(id: "jupiter", name: "Jupiter", distance: 21_097.5,
              information: "A giant of a run: the half marathon."),
        Badge(id: "saturn", name: "Saturn", distance: 30_000,
              information: "30 km, ringed by long training runs."),
        Badge(id: "uranus", name: "Uranus", distance: 42_195,
              information: "The marathon: 42.195 km."),
        Badge(id: "neptune", name: "Neptune", distance: 50_000,
              information: "Beyond the marathon: your first ultra, 50 km."),
        Badge(id: "pluto", name: "Pluto", distance: 100_000,
              information: "The edge of the solar system: 100 km."),
    ])

    /// A ride's rungs: the distances riders train for. Each badge's best
    /// session is that distance's record: the 20 km badge's is the fastest
    /// 20 km (the fastest ride of 20 km or more, by its average moving
    /// speed); the longest ride is the board's `longest`.
    public static let rides = BadgeLadder(badges: [
        Badge(id: "ride_20k", name: "20 km", distance: 20_000,
              information: "A first real ride; its best is your fastest 20 km."),
        Badge(id: "ride_50k", name: "50 km", distance: 50_000,
              information: "Half a century of kilometres."),
        Badge(id: "ride_100k", name: "Metric century", distance: 100_000,
              information: "100 km in the saddle."),
        Badge(id: "ride_century", name: "Century", distance: 160_934.4,
              information: "100 miles: the cyclists' century."),
    ])

    /// Where a live distance stands on the ladder.
    public func progress(distance: Double) -> BadgeProgress {
        let passed = badges.last { distance > $0.distance }
        let next = badges.first { distance <= $0.distance }
        return BadgeProgress(current: passed, next: next,
                             distanceLeft: next.map { max(0, $0.distance - distance) } ?? 0)
    }

    /// Badges whose distance was passed when a live session went from
    /// `previous` to `current` metres (usually none, at most one per tick).
    public func passed(from previous: Double, to current: Double) -> [Badge] {
        guard current > previous else { return [] }
        return badges.filter { previous <= $0.distance && current > $0.distance }
    }
}

/// The "carrot on a stick" during a session.
public struct BadgeProgress: Sendable, Equatable, Codable {
    /// The longest badge distance already exceeded, if any.
    public var current: Badge?
    /// The next badge distance ahead, nil beyond the last badge.
    public var next: Badge?
    /// Metres to go until `next` is passed (0 when there is none).
    public var distanceLeft: Double

    public init(current: Badge?, next: Badge?, distanceLeft: Double) {
        self.current = current
        self.next = next
        self.distanceLeft = distanceLeft
    }
}
