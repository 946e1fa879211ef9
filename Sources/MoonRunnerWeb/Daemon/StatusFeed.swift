import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerProtocol
import ServiceLifecycle

/// What a phone's live view is told.
public enum FeedItem: Sendable, Equatable {
    /// A STATUS line from the daemon, as it came, parsed once for every phone.
    case status(line: String, json: JSONValue)
    /// An EVENT as it happened.
    case event(EventReply)
    /// The link to the daemon changed: up, or down with the reason.
    case link(up: Bool, reason: String)
}

/// What the web app keeps of the daemon's configuration, asked once per
/// connection (`?CONFIG`): the units a phone shows unless it chose, and the
/// upload limit to refuse a course file before reading it.
public struct DaemonFacts: Sendable, Equatable {
    public var units = UnitSystem.metric
    /// `course.max_upload_kb`, in bytes.
    public var maxUploadBytes = 8192 * 1024

    public init() {}

    public init(config: JSONValue) {
        guard case let .object(c) = config else { return }
        if case let .string(u)? = c["units"], let units = UnitSystem(rawValue: u) { self.units = units }
        if case let .object(course)? = c["course"], case let .number(kb)? = course["max_upload_kb"], kb > 0 {
            maxUploadBytes = Int(kb) * 1024
        }
    }
}

/// One `?WATCH` connection to the daemon for every phone (the daemon's cost
/// does not grow with the phones), fanned out to each live view. A daemon
/// that is not there, restarts or goes silent for 31 s is reconnected with
/// back-off (0.25 s doubling to 5 s, as the announcer's `WatchLoop`); the
/// phones are told the link is down meanwhile and get the truth again with
/// the first STATUS after it. A slow phone drops old updates (each STATUS
/// says everything), never holds up the others or grows memory.
public actor StatusFeed: Service {
    public struct Subscription: Sendable {
        public let id: UInt64
        public let items: AsyncStream<FeedItem>
    }

    private let link: any DaemonLink
    private let logger: Logger
    /// False in tests: when the link ends, every live view ends too.
    private let reconnects: Bool
    private var subscribers: [UInt64: (device: String?, continuation: AsyncStream<FeedItem>.Continuation)] = [:]
    private var nextID: UInt64 = 0
    private var onEvent: @Sendable (EventReply) async -> Void = { _ in }
    private var onConnect: @Sendable () async -> Void = {}
    public private(set) var lastStatus: FeedItem?
    public private(set) var linkState = FeedItem.link(up: false, reason: "connecting to moonrunnerd")
    public private(set) var facts = DaemonFacts()
    /// A watcher gets a STATUS every second during a session and every 10 s
    /// while idle (`SessionService.idleStatusInterval`): this long without a
    /// line means the daemon is stuck.
    static let silence = Duration.seconds(31)
    /// Updates a phone may fall behind by before the oldest are dropped.
    static let backlog = 16

    public init(link: any DaemonLink, logger: Logger = Logger(label: "moonrunner-web.feed"), reconnects: Bool = true) {
        self.link = link
        self.logger = logger
        self.reconnects = reconnects
    }

    /// A live view's stream: the link's state and the last STATUS at once, then what comes.
    public func subscribe(device: String?) -> Subscription {
        nextID += 1
        let (stream, continuation) = AsyncStream<FeedItem>.makeStream(bufferingPolicy: .bufferingNewest(Self.backlog))
        subscribers[nextID] = (device, continuation)
        continuation.yield(linkState)
        if let lastStatus { continuation.yield(lastStatus) }
        if !running && !reconnects && stopped { continuation.finish() }
        return Subscription(id: nextID, items: stream)
    }

    /// Called with every EVENT, after the phones got it (the web app reads a just-stopped session).
    public func setOnEvent(_ handler: @escaping @Sendable (EventReply) async -> Void) {
        onEvent = handler
    }

    /// Called each time the daemon answers a new connection (the web app reads the newest session).
    public func setOnConnect(_ handler: @escaping @Sendable () async -> Void) {
        onConnect = handler
    }

    public func unsubscribe(_ id: UInt64) {
        subscribers.removeValue(forKey: id)?.continuation.finish()
    }

    /// Ends every live view of a device at once (it was revoked).
    public func endStreams(ofDevice device: String) {
        for (id, s) in subscribers where s.device == device {
            s.continuation.finish()
            subscribers[id] = nil
        }
    }

    public var watchers: Int { subscribers.count }

    private var running = false
    private var stopped = false
    /// A STATUS came on the current connection: the next outage starts its back-off afresh.
    private var answered = false

    public func run() async throws {
        running = true
        defer {
            running = false
            stopped = true
            finishAll()
        }
        try? await cancelWhenGracefulShutdown { try await self.loop() }
        // Without reconnecting (tests), the live views end with the link, and
        // the service lasts until the server stops, as a service must.
        if !reconnects {
            stopped = true
            finishAll()
            try? await gracefulShutdown()
        }
    }

    /// Connects, watches, and after a failure waits 0.25 s doubling to 5 s
    /// (afresh once the daemon answered again) before the next try.
    private func loop() async throws {
        var backoff = Backoff()
        var outage = false
        while !Task.isCancelled {
            await connectOnce(logging: !outage)
            let wasUp = takeAnswered()
            outage = !wasUp
            guard reconnects, !Task.isCancelled else { break }
            if wasUp { backoff.reset() }
            try await Task.sleep(for: .seconds(backoff.wait()))
        }
    }

    /// One connection: the daemon's configuration, then its watch until it ends.
    private func connectOnce(logging: Bool) async {
        do {
            let config = try await link.request(DaemonRequest(command: .config))
            if let reply = try? ReplyEncoder.decode(ConfigReply.self, from: config) { facts = DaemonFacts(config: reply.config) }
            let connected = onConnect
            Task { await connected() }
            try await link.converse([DaemonRequest(command: .watch(enable: true)).line], silence: Self.silence) { @Sendable line in
                await self.receive(line)
                return !Task.isCancelled
            }
            down("moonrunnerd closed the connection", log: logging)
        } catch is CancellationError {
            return
        } catch {
            down("\(error)", log: logging)
        }
    }

    private func takeAnswered() -> Bool {
        defer { answered = false }
        return answered
    }

    private func finishAll() {
        for s in subscribers.values { s.continuation.finish() }
        subscribers = [:]
    }

    private func receive(_ line: String) {
        switch ReplyEncoder.replyClass(of: line) {
        case "STATUS":
            guard let json = try? JSONValue.parse(line) else { return }
            if case .link(up: false, _) = linkState {
                linkState = .link(up: true, reason: "")
                logger.notice("watching moonrunnerd")
                broadcast(linkState)
            }
            answered = true
            let item = FeedItem.status(line: line, json: json)
            lastStatus = item
            broadcast(item)
        case "EVENT":
            guard let event = try? ReplyEncoder.decode(EventReply.self, from: line) else { return }
            broadcast(.event(event))
            let handler = onEvent
            Task { await handler(event) }
        default:
            return
        }
    }

    private func down(_ reason: String, log: Bool) {
        if log { logger.warning("moonrunnerd: \(reason); reconnecting") }
        if case .link(up: false, let was) = linkState, was == reason { return }
        linkState = .link(up: false, reason: reason)
        broadcast(linkState)
    }

    private func broadcast(_ item: FeedItem) {
        for s in subscribers.values { s.continuation.yield(item) }
    }
}
