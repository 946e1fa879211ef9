import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore
import Synchronization
import Testing
@testable import MoonRunnerDaemon

/// Collects what a watcher would receive.
final class WatcherSink: Sendable {
    private let lines = Mutex<[String]>([])
    func receive(_ line: String) { lines.withLock { $0.append(line) } }
    var received: [String] { lines.withLock { $0 } }
}

@Suite("Session service (real store, no sockets)")
struct SessionServiceTests {
    static func service(_ tweak: (inout DaemonConfig) -> Void = { _ in }) throws -> (SessionService, SessionStore) {
        var config = DaemonConfig()
        config.stateDir = NSTemporaryDirectory() + "mr-svc-\(UUID().uuidString.prefix(8))"
        tweak(&config)
        let store = try SessionStore(directory: config.stateDir)
        let service = SessionService(config: config, store: store, clock: EngineClock(), logger: Logger(label: "test"))
        return (service, store)
    }

    static func fix(_ t: Double, metres: Double) -> GPSFix {
        GPSFix(time: t, mode: 3, latitude: 48.0 + metres / 111_200, longitude: 11.0, altitude: 500,
               eph: 6, speed: 3, track: 0, stdLat: 2, stdLon: 2)
    }

    @Test("passing a badge distance sends an EVENT; STATUS shows the next badge; BADGES shows it earned")
    func badges() async throws {
        let (service, _) = try Self.service()
        let sink = WatcherSink()
        await service.addWatcher(1) { sink.receive($0) }
        let started = await service.handle(Request(command: .start(activity: "run")))
        let status = try ReplyEncoder.decode(StatusReply.self, from: started)
        let t0 = status.time
        for k in 0..<450 {
            await service.ingest(fix: Self.fix(t0 + Double(k), metres: Double(k) * 3), at: t0 + Double(k))
        }
        let events = sink.received.filter { ReplyEncoder.replyClass(of: $0) == "EVENT" }
            .compactMap { try? ReplyEncoder.decode(EventReply.self, from: $0) }
        let badge = try #require(events.first { $0.event == "badge" })
        #expect(badge.detail == "Moon")
        let live = try ReplyEncoder.decode(StatusReply.self, from: await service.handle(Request(command: .status)))
        #expect(live.distanceM > 1000 && live.distanceM < 1400)
        let next = try #require(live.nextBadge)
        #expect(next.name == "Mercury")
        #expect(abs(next.leftM - (3000 - live.distanceM)) < 1)
        #expect(live.caloriesKcal > 50 && live.caloriesKcal < 200)

        _ = await service.handle(Request(command: .stop))
        let board = try ReplyEncoder.decode(BadgesReply.self, from: await service.handle(Request(command: .badges)))
        let moon = try #require(board.badges.first { $0.name == "Moon" })
        #expect(moon.earned?.session == live.session)
        #expect(board.badges.first { $0.name == "Mercury" }?.earned == nil)
    }

    @Test("after a restart, an idle BADGES is the last session's activity: a walk's Moon stays on the board")
    func badgesAfterRestart() async throws {
        var config = DaemonConfig()
        config.stateDir = NSTemporaryDirectory() + "mr-svc-\(UUID().uuidString.prefix(8))"
        let store = try SessionStore(directory: config.stateDir)
        let service = SessionService(config: config, store: store, clock: EngineClock(), logger: Logger(label: "test"))
        let started = try ReplyEncoder.decode(StatusReply.self,
                                              from: await service.handle(Request(command: .start(activity: "walk"))))
        for k in 0..<450 {
            let t = started.time + Double(k)
            await service.ingest(fix: Self.fix(t, metres: Double(k) * 3), at: t)
        }
        _ = await service.handle(Request(command: .stop))
        // The configured activity is a run: the board must not fall back to it while a walk was the last session.
        let restarted = SessionService(config: config, store: store, clock: EngineClock(),
                                       logger: Logger(label: "test"))
        await restarted.recover()
        let board = try ReplyEncoder.decode(BadgesReply.self, from: await restarted.handle(Request(command: .badges)))
        #expect(board.activity == "walk")
        #expect(board.badges.first { $0.name == "Moon" }?.earned?.session == started.session)
    }

    @Test("SESSION carries splits per km and mile, laps and calories")
    func figures() async throws {
        let (service, _) = try Self.service()
        let started = try ReplyEncoder.decode(StatusReply.self, from: await service.handle(Request(command: .start(activity: "run"))))
        let t0 = started.time
        for k in 0..<800 {
            await service.ingest(fix: Self.fix(t0 + Double(k), metres: Double(k) * 3), at: t0 + Double(k))
            if k == 400 { _ = await service.handle(Request(command: .lap)) }
        }
        _ = await service.handle(Request(command: .stop))
        let id = try #require(started.session)
        let reply = try ReplyEncoder.decode(SessionReply.self, from: await service.handle(Request(command: .session(id: id))))
        let f = reply.figures
        #expect(f.splitsKm.filter { !$0.partial }.count == 2)
        #expect(f.splitsMi.filter { !$0.partial }.count == 1)
        // 3 m/s is 5:33 min/km.
        let best = try #require(f.bestPaceSPerKm)
        #expect(abs(best - 1000 / 3.0) < 15)
        #expect(f.laps.count == 2)
        #expect(f.caloriesKcal > 100)
        #expect(reply.points == reply.stats.points)
    }

    @Test("an unknown session is not_found")
    func unknownSession() async throws {
        let (service, _) = try Self.service()
        let reply = await service.handle(Request(command: .session(id: 42)))
        #expect(try ReplyEncoder.decode(ErrorReply.self, from: reply).code == .notFound)
    }
}

@Suite("Session service: what announcers hear")
struct SessionServiceAnnounceTests {
    static func events(_ sink: WatcherSink) -> [EventReply] {
        sink.received.filter { ReplyEncoder.replyClass(of: $0) == "EVENT" }
            .compactMap { try? ReplyEncoder.decode(EventReply.self, from: $0) }
    }

    @Test("a split EVENT per km, as SESSION lists the splits; GPS lost and regained; nothing split after stop")
    func splitsAndGPS() async throws {
        let (service, _) = try SessionServiceTests.service()
        let sink = WatcherSink()
        await service.addWatcher(1) { sink.receive($0) }
        let started = try ReplyEncoder.decode(StatusReply.self, from: await service.handle(Request(command: .start(activity: "run"))))
        let t0 = started.time
        var k = 0
        func run(_ seconds: Int) async {
            for _ in 0..<seconds {
                await service.ingest(fix: SessionServiceTests.fix(t0 + Double(k), metres: Double(k) * 3), at: t0 + Double(k))
                k += 1
            }
        }
        await run(500)
        // 20 s without a fix (gpsd reports mode 1), as in a tunnel.
        for _ in 0..<20 {
            let t = t0 + Double(k)
            await service.ingest(fix: GPSFix(time: t, mode: 1, latitude: .nan, longitude: .nan, altitude: .nan, eph: .nan,
                                             speed: .nan, track: .nan, stdLat: .nan, stdLon: .nan), at: t)
            k += 1
        }
        await run(300)
        _ = await service.handle(Request(command: .stop))
        let id = try #require(started.session)
        let show = try ReplyEncoder.decode(SessionReply.self, from: await service.handle(Request(command: .session(id: id))))

        let events = Self.events(sink)
        let splits = events.filter { $0.event == "split" }
        let whole = show.figures.splitsKm.filter { !$0.partial }
        #expect(splits.count == whole.count && splits.count == 2)
        for (live, stored) in zip(splits, whole) {
            let figures = try #require(live.split)
            #expect(live.detail == String(stored.number))
            #expect(figures.number == stored.number)
            #expect(abs((figures.paceS ?? 0) - (stored.paceS ?? 1)) < 1e-6)
            #expect(abs(figures.elapsedS - stored.elapsedS) < 1e-6)
        }
        let kinds = events.map(\.event)
        let lost = try #require(kinds.firstIndex(of: "gps_lost"))
        let back = try #require(kinds.firstIndex(of: "gps_regained"))
        #expect(lost < back)
        #expect(kinds.last == "stop")
        #expect(!events.contains { $0.event == "split" && $0.split == nil })
        // The journal keeps them too, with the split number.
        #expect(show.events.filter { $0.event == "split" }.map(\.detail) == ["1", "2"])
    }

    @Test("?ANNOUNCE sets quiet in STATUS and tells watchers at once")
    func quiet() async throws {
        let (service, _) = try SessionServiceTests.service()
        let sink = WatcherSink()
        await service.addWatcher(1) { sink.receive($0) }
        let before = try ReplyEncoder.decode(StatusReply.self, from: await service.handle(Request(command: .status)))
        #expect(before.quiet == false)
        let muted = try ReplyEncoder.decode(StatusReply.self, from: await service.handle(Request(command: .announce(quiet: true))))
        #expect(muted.quiet == true)
        let pushed = sink.received.compactMap { try? ReplyEncoder.decode(StatusReply.self, from: $0) }
        #expect(pushed.last?.quiet == true)
        let unmuted = try ReplyEncoder.decode(StatusReply.self, from: await service.handle(Request(command: .announce(quiet: false))))
        #expect(unmuted.quiet == false)
    }

    @Test("badge EVENTs: earned the first time, passed again later, gold at stop (before the stop EVENT) when faster")
    func badgeCauses() async throws {
        let (service, _) = try SessionServiceTests.service()
        let sink = WatcherSink()
        await service.addWatcher(1) { sink.receive($0) }
        // The second session's clock starts at the wall clock, before the first one's
        // fixes (which ran ahead of it): its average counts that wait, hence 5 m/s
        // against 2.1 m/s for an average some 18 % faster.
        var t = 0.0, along = 0.0
        for metresPerSecond in [2.1, 5.0] {
            let started = try ReplyEncoder.decode(StatusReply.self, from: await service.handle(Request(command: .start(activity: "run"))))
            t = max(t, started.time)
            let t0 = t
            for k in 0..<500 {
                t = t0 + Double(k)
                along += metresPerSecond
                var fix = SessionServiceTests.fix(t, metres: along)
                fix.speed = metresPerSecond
                await service.ingest(fix: fix, at: t)
            }
            _ = await service.handle(Request(command: .stop))
            t += 10
        }
        let events = Self.events(sink).filter { ["badge", "stop"].contains($0.event) }
        #expect(events.map { "\($0.event):\($0.cause):\($0.detail ?? "")" }
            == ["badge:earned:Moon", "stop:command:", "badge:distance:Moon", "badge:gold:Moon", "stop:command:"])
    }
}
