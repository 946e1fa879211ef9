import FoundationEssentials
import Glibc
import MoonRunnerCore
import Synchronization

/// Plays a heart-rate trace (`t,bpm,rr_ms`) on the engine clock, as a strap
/// would have sent it: each row is delivered when the clock reaches its time
/// (placed on the receiver's clock when the trace is in UNIX time, across
/// whole GPS week roll-overs; from the start otherwise). Its own thread sleeps
/// until the next row; a stop ends the sleep.
public final class HeartRateReplay: HeartRateSource, @unchecked Sendable {
    public let updates: AsyncStream<HeartRateUpdate>
    public let waitsForReceiver: Bool
    private let continuation: AsyncStream<HeartRateUpdate>.Continuation
    private let samples: [HeartRateSample]
    private let clock: IMUClock
    private let path: String
    private let thread = SensorThread()
    private let shared = Mutex(HeartRateSourceStatus())

    /// Reads the whole trace at once (a `TraceFileError` is a configuration mistake).
    public init(path: String, clock: IMUClock) throws {
        samples = try HeartRateTraceReader.readAll(path: path)
        self.clock = clock
        self.path = path
        waitsForReceiver = (samples.first?.t ?? 0) > TracePlayback.absoluteAfter
        (updates, continuation) = AsyncStream.makeStream(of: HeartRateUpdate.self, bufferingPolicy: .bufferingNewest(1024))
        shared.withLock {
            $0.device = "(replay) \(path)"
            $0.health = .ok
        }
    }

    public var status: HeartRateSourceStatus { shared.withLock { $0 } }

    public func start() {
        if !thread.start(name: "moonrunner-hr-replay", { [self] in run() }) { continuation.finish() }
    }

    public func stop() {
        if !thread.stop(timeout: 5) { continuation.finish() }
    }

    private func run() {
        let start = clock.now()
        var base = start
        if waitsForReceiver, let offset = clock.receiverOffset(), let first = samples.first {
            // Engine time of receiver time x is x − offset.
            base = -offset + WeekRollover.alignment(traceStart: first.t, receiverTime: start + offset)
        } else if let first = samples.first {
            base = start - first.t
        }
        var connected = false
        for s in samples {
            let due = s.t + base
            thread.pause(due - clock.now(), clock: clock, step: 0.25)
            if thread.stopRequested { break }
            if due < start - 1 { continue }   // before the daemon's clock began: not played
            if !connected {
                connected = true
                let now = shared.withLock { s -> HeartRateSourceStatus in
                    s.state = .connected
                    s.health = .ok
                    s.connects = 1
                    return s
                }
                continuation.yield(.status(now, detail: "replay of \(path)"))
            }
            shared.withLock { $0.notifications += 1 }
            var sample = s
            sample.t = due
            continuation.yield(.sample(sample))
        }
        if connected, !thread.stopRequested {
            let now = shared.withLock { s -> HeartRateSourceStatus in
                s.state = .lost
                s.health = .lost
                s.lastError = "end of trace"
                return s
            }
            continuation.yield(.status(now, detail: "end of trace"))
        }
        if !thread.stopRequested { thread.waitForStop() }
        continuation.finish()
        thread.finish()
    }
}
