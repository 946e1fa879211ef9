import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerProtocol

/// A job that reached its end, for whoever listens (the socket's watchers: the announcer).
public struct UploadNotice: Sendable, Equatable {
    public var target: TargetKind
    public var session: Int64
    public var activity: String
    public var state: JobState
    public var url: String?
    /// When the job finished (the queue's clock).
    public var time: Double
}

/// Works the ledger's jobs: queues each finished session once per target
/// that is enabled and connected, sends what is due while the network
/// allows, and writes every step to the ledger before the next one, so that
/// a crash, a power cut or a full disk at any point leaves a job that is
/// finished, or in doubt and looked for before it is sent again, never sent
/// twice. One job at a time: a Pi's uplink is one phone's hotspot or one
/// home Wi-Fi, and the services count requests per application.
public actor UploadQueue {
    let ledger: Ledger
    let settings: UploadSettings
    let targets: [TargetKind: any UploadTarget]
    let source: any SessionSource
    let now: @Sendable () -> Double
    let logger: Logger
    let policy: RetryPolicy
    let wakeup = Wakeup()
    /// Whether the network allows uploads now (up, and on a listed Wi-Fi when a list is set).
    private(set) var networkAllows = true
    /// Due times kept in memory when the ledger could not be written (a full disk).
    var heldBack: [String: Double] = [:]
    /// True while a pass over the due jobs runs (one at a time).
    var working = false
    private var listeners: [UUID: AsyncStream<UploadNotice>.Continuation] = [:]

    public init(ledger: Ledger, settings: UploadSettings, targets: [any UploadTarget], source: any SessionSource,
                now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                logger: Logger = Logger(label: "moonrunner-upload")) {
        self.ledger = ledger
        self.settings = settings
        self.targets = Dictionary(targets.map { ($0.kind, $0) }, uniquingKeysWith: { a, _ in a })
        self.source = source
        self.now = now
        self.logger = logger
        policy = RetryPolicy(first: settings.firstWait, longest: settings.longestWait)
    }

    // MARK: Running

    /// Watches the daemon and works the queue until cancelled.
    public func run() async {
        let source = self.source
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await source.watch { await self.catchUp() } }
            group.addTask { await self.loop() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Every this many seconds the daemon's sessions are listed again, whatever its events said:
    /// a stop missed (a watch that broke at the wrong moment) is queued within five minutes.
    static let catchUpEvery = 300.0

    private func loop() async {
        var caughtUp = now()
        while !Task.isCancelled {
            if now() - caughtUp >= Self.catchUpEvery {
                caughtUp = now()
                await catchUp()
            }
            await workDue()
            await wakeup.wait(seconds: nextWait())
        }
    }

    /// Seconds until the first open job of a ready target is due (a minute at most).
    func nextWait() -> Double {
        guard networkAllows, let jobs = try? ledger.openJobs() else { return 60 }
        let t = now()
        let due = jobs.filter { ready($0.target) }.map { max(heldBack[key($0)] ?? 0, $0.nextAt) }.min() ?? t + 60
        return max(0, min(60, due - t))
    }

    /// The network came up or changed: when it allows uploads, every waiting job is tried at once.
    public func network(_ view: NetworkView) {
        let rule = NetworkRule(networks: settings.networks)
        let allows = rule.allows(view)
        let returned = rule.returned(to: view, allowedBefore: networkAllows)
        networkAllows = allows
        if !allows { logger.info("network \(view.up ? view.names.first ?? "up" : "down"): uploads wait") }
        guard returned else { return }
        logger.notice("network \(view.names.first ?? "up") allows uploads: trying every waiting job now")
        bringForward { _ in true }
    }

    public func notices() -> AsyncStream<UploadNotice> {
        let (stream, c) = AsyncStream<UploadNotice>.makeStream(bufferingPolicy: .bufferingNewest(32))
        let id = UUID()
        listeners[id] = c
        c.onTermination = { _ in Task { await self.drop(id) } }
        return stream
    }

    private func drop(_ id: UUID) { listeners[id] = nil }

    // MARK: Queueing

    /// Queues every stopped session the ledger does not have for each ready target
    /// (after a stop, and after each connection to the daemon: nothing stopped meanwhile is missed),
    /// from the target's first session on (see `firstToSend`).
    public func catchUp() async {
        let list: [SessionInfo]
        do {
            list = try await source.sessions(limit: 50)
        } catch {
            logger.warning("the daemon's sessions cannot be listed (\(error)); nothing new is queued until it answers")
            return
        }
        var added = 0
        logger.debug("catch-up over \(list.map { "\($0.id) \($0.state.rawValue)" }.joined(separator: ", "))")
        for kind in TargetKind.allCases where ready(kind) {
            guard var credential = (try? ledger.credential(kind)) ?? nil else { continue }
            let from = credential.fromSession ?? Self.firstToSend(list)
            if credential.fromSession == nil {
                credential.fromSession = from
                try? ledger.setCredential(kind, credential)
            }
            for s in list where s.state == .stopped && s.id >= from {
                let job = UploadJob(target: kind, session: s.id, startTime: s.startTime, activity: s.activity, at: now())
                do {
                    if try ledger.enqueue(job) { added += 1 }
                } catch {
                    logger.error("session \(s.id) cannot be queued for \(kind.title): \(error)")
                }
            }
        }
        if added > 0 {
            logger.info("\(added) upload(s) queued")
            await wakeup.fire()
        }
    }

    /// The first session a newly connected target gets: the newest one finished (the run just
    /// made is sent; the history before it is not), 0 when none is. Counted in the daemon's
    /// session ids, not in time: the sessions' times are the GPS's, and neither a Pi without a
    /// clock nor a replayed track compares with this service's clock.
    static func firstToSend(_ list: [SessionInfo]) -> Int64 {
        list.filter { $0.state == .stopped }.map(\.id).max() ?? 0
    }

    /// True when `kind` is enabled, has a target and a credential the service has not refused.
    func ready(_ kind: TargetKind) -> Bool {
        guard settings.target(kind).enabled, targets[kind] != nil,
              let c = try? ledger.credential(kind), c.isConnected, c.refused == nil else { return false }
        return true
    }

    // MARK: Steering (the socket)

    /// Retries now: a failed or held job is queued again; an open one is brought forward.
    public func retry(target: TargetKind?, session: Int64?) async throws -> Int {
        var count = 0
        for var job in try ledger.jobs(limit: 10_000) where (target == nil || job.target == target)
            && (session == nil || job.session == session) && (job.state.isOpen || job.state == .failed || job.state == .held) {
            if job.state == .failed || job.state == .held { job.state = .queued }
            job.nextAt = now()
            job.updatedAt = now()
            try ledger.save(job)
            heldBack[key(job)] = nil
            count += 1
        }
        await wakeup.fire()
        return count
    }

    /// Sends a session again to a target although it was sent (the activity was deleted there):
    /// queued afresh, marked so that no earlier copy is looked for.
    public func again(target: TargetKind, session: Int64) async throws -> UploadJob {
        let info = try await source.sessions(limit: 200).first { $0.id == session }
        var job = try ledger.job(target, session) ?? UploadJob(target: target, session: session, startTime: info?.startTime ?? 0,
                                                                activity: info?.activity ?? "run", at: now())
        job.state = .queued
        job.again = true
        job.attempts = 0
        job.remoteID = nil
        job.remoteURL = nil
        job.pending = nil
        job.lastError = nil
        job.nextAt = now()
        try ledger.save(job)
        await wakeup.fire()
        return job
    }

    /// A target was connected or reconnected: its held jobs wake, and finished sessions are queued.
    public func connected(_ kind: TargetKind) async {
        for var job in (try? ledger.jobs(limit: 10_000)) ?? [] where job.target == kind && job.state == .held {
            job.state = .queued
            job.nextAt = now()
            try? ledger.save(job)
        }
        await catchUp()
        await wakeup.fire()
    }

    func bringForward(_ which: (UploadJob) -> Bool) {
        for var job in (try? ledger.openJobs()) ?? [] where which(job) {
            job.nextAt = min(job.nextAt, now())
            try? ledger.save(job)
            heldBack[key(job)] = nil
        }
        Task { await wakeup.fire() }
    }

    func key(_ job: UploadJob) -> String { "\(job.target.rawValue)/\(job.session)" }

    func notify(_ job: UploadJob) {
        let n = UploadNotice(target: job.target, session: job.session, activity: job.activity, state: job.state,
                             url: job.remoteURL, time: now())
        for c in listeners.values { c.yield(n) }
    }
}
