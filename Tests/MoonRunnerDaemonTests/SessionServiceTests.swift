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

    /// The recorded sessions of `service`, as `?SESSIONS`, `?SESSION` and `?EXPORT` read them.
    static func archive(_ service: SessionService, _ store: SessionStore) -> SessionArchive {
        SessionArchive(service: service, store: store, config: DaemonConfig(stateDir: store))
    }

    static func fix(_ t: Double, metres: Double) -> GPSFix {
        GPSFix(time: t, mode: 3, latitude: 48.0 + metres / 111_200, longitude: 11.0, altitude: 500,
               eph: 6, speed: 3, track: 0, stdLat: 2, stdLon: 2)
    }

    @Test("passing a badge distance sends an EVENT; STATUS shows the next badge; BADGES shows it earned")
    func badges() async throws {
        let (service, _) = try Self.service()
        let sink = WatcherSink()
        service.watchers.add(1) { sink.receive($0) }
        let status = try await service.start(.run, course: nil, destination: nil)
        let t0 = status.time
        for k in 0..<450 {
            await service.ingest(fix: Self.fix(t0 + Double(k), metres: Double(k) * 3), at: t0 + Double(k))
        }
        let events = sink.received.filter { ReplyEncoder.replyClass(of: $0) == "EVENT" }
            .compactMap { try? ReplyEncoder.decode(EventReply.self, from: $0) }
        let badge = try #require(events.first { $0.event == "badge" })
        #expect(badge.detail == "Moon")
        let live = await service.status()
        #expect(live.distanceM > 1000 && live.distanceM < 1400)
        let next = try #require(live.nextBadge)
        #expect(next.name == "Mercury")
        #expect(abs(next.leftM - (3000 - live.distanceM)) < 1)
        #expect(live.caloriesKcal > 50 && live.caloriesKcal < 200)

        _ = try await service.run(.stop)
        let board = await service.badges()
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
        let started = try await service.start(.walk, course: nil, destination: nil)
        for k in 0..<450 {
            let t = started.time + Double(k)
            await service.ingest(fix: Self.fix(t, metres: Double(k) * 3), at: t)
        }
        _ = try await service.run(.stop)
        // The configured activity is a run: the board must not fall back to it while a walk was the last session.
        let restarted = SessionService(config: config, store: store, clock: EngineClock(),
                                       logger: Logger(label: "test"))
        await restarted.recover()
        let board = await restarted.badges()
        #expect(board.activity == "walk")
        #expect(board.badges.first { $0.name == "Moon" }?.earned?.session == started.session)
    }

    @Test("SESSION carries splits per km and mile, laps and calories")
    func figures() async throws {
        let (service, store) = try Self.service()
        let started = try await service.start(.run, course: nil, destination: nil)
        let t0 = started.time
        for k in 0..<800 {
            await service.ingest(fix: Self.fix(t0 + Double(k), metres: Double(k) * 3), at: t0 + Double(k))
            if k == 400 { _ = try await service.run(.lap) }
        }
        _ = try await service.run(.stop)
        let id = try #require(started.session)
        let reply = try await Self.archive(service, store).session(id)
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

    @Test("an unknown session is not_found, and the message says where the sessions are listed")
    func unknownSession() async throws {
        let (service, store) = try Self.service()
        await #expect(throws: RequestError(.notFound, "no session 42; ?SESSIONS; lists them")) {
            try await Self.archive(service, store).session(42)
        }
    }

    @Test("the session being recorded cannot be deleted; a finished one can, once")
    func delete() async throws {
        let (service, store) = try Self.service()
        let archive = Self.archive(service, store)
        let id = try #require(try await service.start(.run, course: nil, destination: nil).session)
        await #expect(throws: RequestError(.invalidState, "session \(id) is being recorded; ?STOP; it first")) {
            try await archive.delete(id)
        }
        _ = try await service.run(.stop)
        #expect(try await archive.delete(id) == DeletedReply(session: id))
        await #expect(throws: RequestError(.notFound, "no session \(id)")) { try await archive.delete(id) }
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
        let (service, store) = try SessionServiceTests.service()
        let sink = WatcherSink()
        service.watchers.add(1) { sink.receive($0) }
        let started = try await service.start(.run, course: nil, destination: nil)
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
        _ = try await service.run(.stop)
        let id = try #require(started.session)
        let show = try await SessionServiceTests.archive(service, store).session(id)

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
        service.watchers.add(1) { sink.receive($0) }
        let before = await service.status()
        #expect(before.quiet == false)
        let muted = await service.announce(quiet: true)
        #expect(muted.quiet == true)
        let pushed = sink.received.compactMap { try? ReplyEncoder.decode(StatusReply.self, from: $0) }
        #expect(pushed.last?.quiet == true)
        let unmuted = await service.announce(quiet: false)
        #expect(unmuted.quiet == false)
    }

    @Test("badge EVENTs: earned the first time, passed again later, gold at stop (before the stop EVENT) when faster")
    func badgeCauses() async throws {
        let (service, _) = try SessionServiceTests.service()
        let sink = WatcherSink()
        service.watchers.add(1) { sink.receive($0) }
        // The second session's clock starts at the wall clock, before the first one's
        // fixes (which ran ahead of it): its average counts that wait, hence 5 m/s
        // against 2.1 m/s for an average some 18 % faster.
        var t = 0.0, along = 0.0
        for metresPerSecond in [2.1, 5.0] {
            let started = try await service.start(.run, course: nil, destination: nil)
            t = max(t, started.time)
            let t0 = t
            for k in 0..<500 {
                t = t0 + Double(k)
                along += metresPerSecond
                var fix = SessionServiceTests.fix(t, metres: along)
                fix.speed = metresPerSecond
                await service.ingest(fix: fix, at: t)
            }
            _ = try await service.run(.stop)
            t += 10
        }
        let events = Self.events(sink).filter { ["badge", "stop"].contains($0.event) }
        #expect(events.map { "\($0.event):\($0.cause):\($0.detail ?? "")" }
            == ["badge:earned:Moon", "stop:command:", "badge:distance:Moon", "badge:gold:Moon", "stop:command:"])
    }
}
