import FoundationEssentials
import Glibc
import MoonRunnerAnnounceCore
import MoonRunnerProtocol
import MoonRunnerSystem
import MoonRunnerThreads

/// What the reader thread and the speaker thread share: the announcer's
/// state and the queue of what is to be said, behind one lock.
final class Shared: @unchecked Sendable {
    private let condition = Condition()
    private var announcer: Announcer
    private var queue: SpeechQueue
    /// The daemon's clock minus ours, from the last STATUS (its `time` is the
    /// daemon's clock when sent, in UTC of the receiver): turns `detected_at`
    /// into our wall clock for the latency in the log.
    private var daemonAhead: Double?

    init(settings: AnnounceSettings) {
        announcer = Announcer(settings: settings)
        queue = SpeechQueue(maxDelay: settings.maxDelay)
    }

    var quiet: Bool { locked { announcer.quiet } }

    func connected() {
        locked { announcer.connected() }
    }

    func status(_ s: StatusReply, course: CourseGlance?, at now: Double) {
        locked {
            daemonAhead = s.time - Date().timeIntervalSince1970
            let out = announcer.receive(status: s, course: course, at: now)
            if announcer.quiet { Self.logDropped(queue.clear(), why: "quiet") }
            enqueue(out)
        }
    }

    func event(_ e: EventReply, at now: Double) {
        locked { enqueue(announcer.receive(event: e, at: now)) }
    }

    func uploaded(_ u: UploadedReply, at now: Double) {
        locked { enqueue(announcer.receive(uploaded: u, at: now)) }
    }

    /// The next announcement to say, waiting for one; stale ones are dropped on the way.
    func next() -> Announcement {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let now = MonotonicClock.now()
            enqueue(announcer.tick(at: now), signal: false)
            let (next, dropped) = queue.next(at: now)
            Self.logDropped(dropped, why: "stale")
            if let next, !announcer.quiet { return next }
            condition.wait(seconds: 0.25)
        }
    }

    /// A daemon-clock instant on our wall clock (nil before the first STATUS).
    func wallTime(ofDaemon t: Double) -> Double? {
        locked { daemonAhead.map { t - $0 } }
    }

    /// True when `a` may no longer start (for a speaker that was held up).
    func isStale(_ a: Announcement) -> Bool {
        locked { queue.isStale(a, at: MonotonicClock.now()) || announcer.quiet }
    }

    private func enqueue(_ out: [Announcement], signal: Bool = true) {
        guard !out.isEmpty else { return }
        Self.logDropped(queue.push(out), why: "queue full")
        if signal { condition.signal() }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    private static func logDropped(_ dropped: [Announcement], why: String) {
        for a in dropped { Log.line("dropped (\(why)) \(a.trigger): \(a.text)") }
    }
}
