import CGPS
import Dispatch
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerSystem
import MoonRunnerThreads
import Synchronization

/// A gpsd client over libgps on its own thread.
///
/// libgps is blocking C, so it gets a dedicated thread; fixes leave it
/// through an `AsyncStream`, one per epoch (see `GPSEpochAssembler`). When
/// gpsd goes away (`gps_read` returns -1, or it cannot be reached) the client
/// reports `lost` and reconnects with exponential back-off, forever, until
/// stopped. 5 s without a TPV also counts as `lost`.
public final class GPSDClient: Sendable {
    public let host: String
    public let port: String
    public let updates: AsyncStream<GPSUpdate>
    private let continuation: AsyncStream<GPSUpdate>.Continuation
    private let clock: EngineClock
    private let state = Mutex(State())
    /// Signalled by `stop()` so that back-off sleeps end at once.
    private let wake = DispatchSemaphore(value: 0)

    /// Seconds without a TPV before the GPS is reported lost.
    public static let silenceLimit = 5.0

    /// A wait on the socket this long or longer ended because data came (not already there).
    static let waitedOnSocket = 0.001

    /// Seconds between the fixes handed over while no session needs them:
    /// enough for `STATUS.gps` and the receiver's clock, and the thread sleeps
    /// through the epochs in between (gpsd's reports wait in the socket).
    public static let idleInterval = 15.0

    private struct State: Sendable {
        var stopped = false
        var health = GPSHealth.connecting
        var connects = 0
        var wanted = true
    }

    public init(host: String, port: Int, clock: EngineClock) {
        self.host = host
        self.port = String(port)
        self.clock = clock
        (updates, continuation) = AsyncStream.makeStream(of: GPSUpdate.self, bufferingPolicy: .bufferingNewest(256))
    }

    public var health: GPSHealth { state.withLock { $0.health } }
    /// Successful connections so far (reconnects show as > 1).
    public var connects: Int { state.withLock { $0.connects } }

    public func start() {
        // A write to a socket gpsd closed must be an error, not a signal that kills us.
        signal(SIGPIPE, SIG_IGN)
        NamedThread.start(name: "gpsd-client") { [self] in run() }
    }

    public func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    private var stopped: Bool { state.withLock { $0.stopped } }
    private var wanted: Bool { state.withLock { $0.wanted } }

    /// Whether a session needs every fix; while not, one is handed over every `idleInterval`.
    public func want(_ wanted: Bool) {
        let woken = state.withLock { s -> Bool in
            defer { s.wanted = wanted }
            return wanted && !s.wanted
        }
        if woken { wake.signal() }
    }

    private func setHealth(_ h: GPSHealth) {
        let changed = state.withLock { s -> Bool in
            guard s.health != h else { return false }
            s.health = h
            return true
        }
        if changed { continuation.yield(.health(h)) }
    }

    private func run() {
        var backoff = 0.25
        while !stopped {
            let delivered = session()
            if stopped { break }
            setHealth(.lost)
            if delivered { backoff = 0.25 }
            _ = wake.wait(timeout: .now() + backoff)
            backoff = min(backoff * 2, 8)
        }
        continuation.finish()
    }

    /// One connection to gpsd, until it fails or we are stopped. Returns true
    /// when the connection delivered anything (so back-off starts over).
    private func session() -> Bool {
        var data = gps_data_t()
        guard gps_open(host, port, &data) == 0 else { return false }
        defer { gps_close(&data) }
        _ = moonrunner_gps_stream_json(&data)
        state.withLock { $0.connects += 1 }
        var assembler = GPSEpochAssembler()
        var lastTPV = MonotonicClock.now()
        var delivered = false
        var lastIdleFix = -Double.infinity
        var handedOut = Double.nan
        var handedCount = 0
        var gather = EpochGather(speed: clock.speed)
        var phase = EpochPhase(speed: clock.speed)
        var open = true
        while open && !stopped {
            // A session's epochs come at a known phase: sleep through their reports and read
            // each epoch whole (`EpochPhase`); else wake for data, or when the silence runs out.
            if wanted, let nap = phase.sleep(at: MonotonicClock.now(), interval: gather.interval) {
                _ = wake.wait(timeout: .now() + nap)
            }
            let silence = Self.silenceLimit * max(1, 1 / clock.speed)
            let quiet = max(0.25, silence - (MonotonicClock.now() - lastTPV))
            let ready = waitForData(&data, seconds: quiet)
            if ready.any {
                let arrived = MonotonicClock.now()
                var read = readAvailable(&data, arrived: arrived, after: handedOut, &assembler, &gather)
                read.waited = ready.came
                if assembler.isPending {
                    gatherEpoch(&data, arrived: arrived, after: handedOut, &assembler, &gather, &read)
                }
                if read.late > 0 { gather.late(read.late, after: handedCount) }
                open = !read.closed
                delivered = delivered || read.any
                if read.tpv { lastTPV = MonotonicClock.now() }
                // The epoch is complete (a late report of it is dropped: see `take`).
                let count = assembler.pendingReports
                if read.wentShort || read.late > 0 { phase.reset() }
                if let e = assembler.flush() {
                    handedOut = e.fix.time
                    handedCount = count
                    handOver(e, count: count, measured: read.waited, &gather, &phase)
                    if !wanted, e.fix.hasPosition { lastIdleFix = MonotonicClock.now() }
                }
                if !wanted { phase.reset() }
                // No session: sleep through the next epochs (stop or a session wakes it).
                let rest = Self.idleInterval / max(1, clock.speed) - (MonotonicClock.now() - lastIdleFix)
                if open, !wanted, rest > 0 {
                    _ = wake.wait(timeout: .now() + rest)
                    lastTPV = MonotonicClock.now()
                    skipBuffered(&data)
                }
            } else if MonotonicClock.now() - lastTPV > silence {
                setHealth(.lost)
            }
        }
        if let e = assembler.flush() { deliver(e.fix, at: e.at) }
        return delivered
    }

    /// Hands an epoch over, and learns from it how the epochs come.
    private func handOver(_ e: (fix: GPSFix, at: Double), count: Int, measured: Bool,
                          _ gather: inout EpochGather, _ phase: inout EpochPhase) {
        if gather.complete(count) {
            phase.completed(receiverTime: e.fix.time, at: MonotonicClock.now(), measured: measured,
                            interval: gather.interval)
        } else {
            phase.reset()
        }
        gather.went(with: count)
        gather.handedOver(receiverTime: e.fix.time)
        deliver(e.fix, at: e.at)
    }

    /// What one read of the socket brought.
    private struct Read {
        var any = false
        var tpv = false
        /// TPVs of the epoch already handed over (dropped): it left too soon.
        var late = 0
        /// gpsd closed the connection.
        var closed = false
        /// An epoch went before all its TPVs came (the next epoch's first closed it).
        var wentShort = false
        /// The last read came after a wait on the socket: the data arrived then.
        var waited = false

        mutating func merge(_ other: Read) {
            any = any || other.any
            tpv = tpv || other.tpv
            late += other.late
            closed = closed || other.closed
            wentShort = wentShort || other.wentShort
        }
    }

    /// An epoch's first TPV is here: sleeps while the rest come (`EpochGather`),
    /// then reads them; waits on for those still missing, up to the deadline.
    private func gatherEpoch(_ data: inout gps_data_t, arrived: Double, after: Double,
                             _ assembler: inout GPSEpochAssembler, _ gather: inout EpochGather, _ read: inout Read) {
        var waited = false
        if !gather.complete(assembler.pendingReports) {
            _ = wake.wait(timeout: .now() + max(0, gather.sleep - (MonotonicClock.now() - arrived)))
            read.merge(readAvailable(&data, arrived: arrived, after: after, &assembler, &gather))
            read.waited = false
        }
        while !read.closed, !stopped, assembler.isPending, !gather.complete(assembler.pendingReports) {
            let left = gather.deadline - (MonotonicClock.now() - arrived)
            guard left > 0 else { return }
            let ready = waitForData(&data, seconds: left)
            guard ready.any else { return }
            waited = true
            read.waited = ready.came
            read.merge(readAvailable(&data, arrived: arrived, after: after, &assembler, &gather))
        }
        if waited { gather.took(MonotonicClock.now() - arrived) }
    }

    /// Waits up to `seconds` on gpsd's socket: whether data is there, and whether
    /// it came during the wait (so that now is when it came), not already waiting.
    private func waitForData(_ data: inout gps_data_t, seconds: Double) -> (any: Bool, came: Bool) {
        let polled = MonotonicClock.now()
        let any = gps_waiting(&data, Int32(seconds * 1e6))
        return (any, any && MonotonicClock.now() - polled > Self.waitedOnSocket)
    }

    /// Reads every report that is waiting, without blocking.
    private func readAvailable(_ data: inout gps_data_t, arrived: Double, after: Double,
                               _ assembler: inout GPSEpochAssembler, _ gather: inout EpochGather) -> Read {
        var read = Read()
        while !stopped && gps_waiting(&data, 0) {
            data.set = 0
            guard gps_read(&data, nil, 0) != -1 else {
                read.closed = true
                break
            }
            read.any = true
            let before = assembler.pendingReports
            let pending = assembler.isPending
            switch take(data, arrived: arrived, after: after, &assembler, &gather) {
            case .other: break
            case .tpv:
                read.tpv = true
                // The epoch in progress went with this TPV of the next one.
                if pending && assembler.pendingReports == 1 {
                    gather.went(with: before)
                    read.wentShort = read.wentShort || !gather.complete(before)
                }
            case .late:
                read.tpv = true
                read.late += 1
            }
        }
        return read
    }

    private enum Taken { case other, tpv, late }

    /// Takes one report into the epoch being assembled. `arrived` (monotonic)
    /// is when the epoch's first report came; a TPV of the epoch handed out
    /// last (`after`, come after its gather) is dropped, not handed out twice.
    private func take(_ data: gps_data_t, arrived: Double, after: Double,
                      _ assembler: inout GPSEpochAssembler, _ gather: inout EpochGather) -> Taken {
        let set = data.set
        if set & GPSMask.gst != 0 {
            let g = data.gst
            assembler.addGST(time: seconds(g.utctime), lat: g.lat_err_deviation,
                             lon: g.lon_err_deviation, alt: g.alt_err_deviation)
        }
        // A TPV always carries the mode; other reports (SKY, DEVICE...) do not.
        guard set & GPSMask.mode != 0 else { return .other }
        let fix = makeFix(data.fix, hasTime: set & GPSMask.time != 0)
        if fix.time == after { return .late }
        // A replay's clock keeps pace with the receiver (see ReceiverPacing).
        let at = fix.time.isFinite && fix.mode >= 2 ? clock.observeReceiver(time: fix.time)
            : clock.time(atMonotonic: arrived)
        setHealth(fix.hasPosition ? .ok : .noFix)
        for e in assembler.addTPV(fix, at: at) {
            gather.handedOver(receiverTime: e.fix.time)
            deliver(e.fix, at: e.at)
        }
        return .tpv
    }

    /// Reads and drops what gpsd sent while the thread slept: those epochs are
    /// past, and the next one to come is handed over.
    private func skipBuffered(_ data: inout gps_data_t) {
        while !stopped, gps_waiting(&data, 0) {
            guard gps_read(&data, nil, 0) != -1 else { return }
        }
    }

    private func deliver(_ fix: GPSFix, at: Double) {
        continuation.yield(.fix(fix, at: at))
    }

    private func makeFix(_ f: gps_fix_t, hasTime: Bool) -> GPSFix {
        GPSFix(time: hasTime ? seconds(f.time) : .nan, mode: Int(f.mode),
               latitude: f.latitude, longitude: f.longitude, altitude: f.altMSL,
               eph: f.eph, epv: f.epv, speed: f.speed, track: f.track, climb: f.climb)
    }

    private func seconds(_ ts: timespec) -> Double {
        guard ts.tv_sec != 0 || ts.tv_nsec != 0 else { return .nan }
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}

/// libgps `set` bits, from the header of the libgps compiled against (CGPS's
/// shim: the C macros are 64-bit shifts that Swift does not import).
enum GPSMask {
    static let time: UInt64 = moonrunner_gps_time_set()
    static let mode: UInt64 = moonrunner_gps_mode_set()
    static let gst: UInt64 = moonrunner_gps_gst_set()
}

