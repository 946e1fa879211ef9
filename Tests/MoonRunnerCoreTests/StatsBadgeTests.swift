import Foundation
import Testing
@testable import MoonRunnerCore

@Suite("Stats: badges")
struct StatsBadgeTests {
    let ladder = BadgeLadder.solarSystem

    func run(_ id: Int64, km: Double, minutesPerKm: Double, day: Double) -> BadgeSessionSummary {
        BadgeSessionSummary(id: id, distance: km * 1000, moving: km * minutesPerKm * 60, startTime: day * 86_400)
    }

    @Test("the ladder runs outward from the Moon, shortest first, marathon included")
    func ladderShape() {
        let names = ladder.badges.map(\.name)
        #expect(names.first == "Moon" && names.contains("Mars") && names.last == "Pluto")
        #expect(zip(ladder.badges, ladder.badges.dropFirst()).allSatisfy { $0.distance < $1.distance })
        #expect(ladder.badges.contains { $0.distance == 42_195 })
        #expect(Set(ladder.badges.map(\.id)).count == ladder.badges.count)
    }

    @Test("earned by the first session longer than the distance, in start-time order")
    func earning() throws {
        let sessions = [
            run(3, km: 5.2, minutesPerKm: 6, day: 3),
            run(1, km: 0.8, minutesPerKm: 7, day: 1),
            run(2, km: 5.0, minutesPerKm: 6, day: 2),   // exactly 5 km: not longer than Venus
        ]
        let board = BadgeBoard(sessions: sessions)
        #expect(board.status(id: "moon")?.earned?.id == 2)
        #expect(board.status(id: "mercury")?.earned?.id == 2)
        #expect(board.status(id: "venus")?.earned?.id == 3)
        #expect(board.status(id: "mars")?.earned == nil)
        #expect(board.status(id: "mars")?.tier == nil)
    }

    @Test("silver at 5 % faster, gold at 10 %, best is the fastest")
    func tiers() throws {
        // Speeds relative to the earning run: 1.00, 1.04, 1.05 (silver), 1.08, 1.10 (gold), 1.02.
        let base = 6.0
        let factors = [1.0, 1.04, 1.05, 1.08, 1.10, 1.02]
        let sessions = factors.enumerated().map { k, f in
            run(Int64(k + 1), km: 10.5, minutesPerKm: base / f, day: Double(k))
        }
        let board = BadgeBoard(sessions: sessions)
        let mars = try #require(board.status(id: "mars"))
        #expect(mars.earned?.id == 1)
        #expect(mars.silver?.id == 3)
        #expect(mars.gold?.id == 5)
        #expect(mars.best?.id == 5)
        #expect(mars.tier == .gold)
        let earnedSpeed = try #require(mars.earned?.averageSpeed)
        #expect(abs((mars.silverSpeed ?? 0) - earnedSpeed * 1.05) < 1e-9)
        // Jupiter (half marathon) was never reached.
        #expect(board.status(id: "jupiter")?.earned == nil)
    }

    @Test("one big improvement earns silver and gold at once; a faster earlier run does not count")
    func upgradeRules() throws {
        let sessions = [
            run(1, km: 3.5, minutesPerKm: 4.0, day: 1),  // fast, but too short for Venus
            run(2, km: 5.5, minutesPerKm: 6.0, day: 2),  // earns Venus
            run(3, km: 5.5, minutesPerKm: 5.0, day: 3),  // 20 % faster
        ]
        let venus = try #require(BadgeBoard(sessions: sessions).status(id: "venus"))
        #expect(venus.earned?.id == 2 && venus.silver?.id == 3 && venus.gold?.id == 3)
        #expect(BadgeTier.gold > BadgeTier.silver && BadgeTier.silver > BadgeTier.earned)
    }

    @Test("live progress: next badge and distance left")
    func progress() {
        let start = ladder.progress(distance: 0)
        #expect(start.current == nil && start.next?.name == "Moon" && start.distanceLeft == 1000)
        let mid = ladder.progress(distance: 7_300)
        #expect(mid.current?.name == "Venus" && mid.next?.name == "Mars" && abs(mid.distanceLeft - 2_700) < 1e-9)
        let exactly = ladder.progress(distance: 10_000)
        #expect(exactly.next?.name == "Mars" && exactly.distanceLeft == 0)
        let beyond = ladder.progress(distance: 150_000)
        #expect(beyond.current?.name == "Pluto" && beyond.next == nil && beyond.distanceLeft == 0)
    }

    @Test("passing a badge distance is detected once, when the distance goes beyond it")
    func passing() {
        #expect(ladder.passed(from: 4_990, to: 5_000).isEmpty)
        #expect(ladder.passed(from: 5_000, to: 5_004).map(\.name) == ["Venus"])
        #expect(ladder.passed(from: 5_004, to: 5_020).isEmpty)
        #expect(ladder.passed(from: 900, to: 3_100).map(\.name) == ["Moon", "Mercury"])
        #expect(ladder.passed(from: 6_000, to: 5_000).isEmpty)

        let board = BadgeBoard(sessions: [run(1, km: 4, minutesPerKm: 6, day: 1)])
        #expect(board.newlyEarned(from: 990, to: 1_010).isEmpty)          // Moon already earned
        #expect(board.newlyEarned(from: 4_995, to: 5_005).map(\.name) == ["Venus"])
    }

    @Test("silver and gold go to a later session 5 % and 10 % faster on a badge already earned")
    func upgrades() {
        let ladder = BadgeLadder.solarSystem
        let first = BadgeSessionSummary(id: 1, distance: 3_500, moving: 1_200, startTime: 0)
        let slower = BadgeSessionSummary(id: 2, distance: 1_500, moving: 600, startTime: 10)
        #expect(BadgeBoard.upgrades(by: slower, after: [first], ladder: ladder).isEmpty)
        let silver = BadgeSessionSummary(id: 3, distance: 1_100, moving: 1_100 / (3_500 / 1_200.0) / 1.06, startTime: 20)
        let s = BadgeBoard.upgrades(by: silver, after: [first, slower], ladder: ladder)
        #expect(s.map(\.badge.name) == ["Moon"] && s.map(\.tier) == [.silver])
        let gold = BadgeSessionSummary(id: 4, distance: 3_100, moving: 3_100 / (3_500 / 1_200.0) / 1.2, startTime: 30)
        let g = BadgeBoard.upgrades(by: gold, after: [first, slower, silver], ladder: ladder)
        #expect(g.map(\.badge.name) == ["Moon", "Mercury"] && g.map(\.tier) == [.gold, .gold])
        #expect(BadgeBoard.upgrades(by: gold, after: [], ladder: ladder).isEmpty, "the first session earns, nothing more")
    }
}
