import MoonRunnerCore
import Testing
@testable import MoonRunnerDaemon

/// The live session's badge moments, from its distance and the finished sessions.
@Suite("Badge watch")
struct BadgeWatchTests {
    static func told(_ passings: [BadgeWatch.Passing]) -> [String] {
        passings.map { "\($0.badge.name):\($0.cause)" }
    }

    @Test("a badge distance passed for the first time is earned; passed again in a later session it is told as distance")
    func earnedThenDistance() {
        var watch = BadgeWatch()
        watch.start(.run)
        #expect(watch.update(distance: 600, sessionActive: true).isEmpty)
        #expect(Self.told(watch.update(distance: 1001, sessionActive: true)) == ["Moon:earned"])
        #expect(watch.finish(BadgeSessionSummary(id: 1, distance: 1200, moving: 600, startTime: 0)).isEmpty,
                "the first session to earn a badge has nothing to upgrade")
        watch.start(.run)
        #expect(Self.told(watch.update(distance: 1300, sessionActive: true)) == ["Moon:distance"])
    }

    @Test("each badge is told once, however often the distance is looked at")
    func once() {
        var watch = BadgeWatch()
        watch.start(.run)
        let told = [999.0, 1000, 1000.5, 1002, 1500, 2999].flatMap { watch.update(distance: $0, sessionActive: true) }
        #expect(Self.told(told) == ["Moon:earned"])
    }

    @Test("badges passed in one step are all told, shortest first")
    func several() {
        var watch = BadgeWatch()
        watch.start(.run)
        #expect(Self.told(watch.update(distance: 5500, sessionActive: true)) == ["Moon:earned", "Mercury:earned", "Venus:earned"])
    }

    @Test("outside a session nothing is told, and the distance told up to is kept")
    func outsideASession() {
        var watch = BadgeWatch()
        watch.start(.run)
        #expect(watch.update(distance: 2000, sessionActive: false).isEmpty)
        #expect(watch.told == 0)
        #expect(Self.told(watch.update(distance: 2000, sessionActive: true)) == ["Moon:earned"])
    }

    @Test("a session resumed after a restart tells only the badges beyond where it had got to")
    func resumed() {
        var watch = BadgeWatch()
        watch.start(.run, at: 1500)
        #expect(Self.told(watch.update(distance: 3500, sessionActive: true)) == ["Mercury:earned"])
    }

    @Test("a stop 10 % faster than the session that earned a badge brings gold, and the session then counts on the board")
    func gold() {
        let earning = BadgeSessionSummary(id: 1, distance: 1200, moving: 600, startTime: 0)  // 2 m/s
        var watch = BadgeWatch(sessions: [earning])
        let faster = BadgeSessionSummary(id: 2, distance: 1200, moving: 500, startTime: 1000)  // 2.4 m/s, 20 % faster
        let upgrades = watch.finish(faster)
        #expect(upgrades.map { "\($0.badge.name):\($0.tier.rawValue)" } == ["Moon:gold"])
        #expect(watch.board.status(id: "moon")?.gold?.id == 2)
        #expect(watch.sessions.map(\.id) == [1, 2])
    }

    @Test("badges are kept per activity: a 25 km ride earns no running badge, and a ride's board is the ride ladder with the longest ride")
    func perActivity() {
        let run = BadgeSessionSummary(id: 1, distance: 5200, moving: 1600, startTime: 0, activity: .run)
        let ride = BadgeSessionSummary(id: 2, distance: 25_000, moving: 3000, startTime: 100, activity: .ride)
        var watch = BadgeWatch(sessions: [run, ride])
        watch.start(.run)
        #expect(watch.board.status(id: "mars")?.earned == nil, "10 km: only the ride went that far")
        #expect(watch.board.status(id: "venus")?.earned?.id == 1)
        #expect(watch.board.longest?.id == 1)
        watch.start(.ride)
        #expect(watch.board.ladder == .rides)
        #expect(watch.board.status(id: "ride_20k")?.best?.id == 2)
        #expect(watch.board.longest?.id == 2)
        // Passing 20 km on a new ride is told as a distance passed, not a first.
        #expect(watch.update(distance: 20_100, sessionActive: true).map(\.cause) == ["distance"])
    }
}
