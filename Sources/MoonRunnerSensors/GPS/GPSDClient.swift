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

    private struct State: Sendable {
        var stopped = false
        var health = GPSHealth.connecting
        var connects = 0
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
        var sawFix = false
        while !stopped {
            if gps_waiting(&data, 250_000) {
                data.set = 0
                guard gps_read(&data, nil, 0) != -1 else { break }
                delivered = true
                let set = data.set
                if set & GPSMask.gst != 0 {
                    let g = data.gst
                    assembler.addGST(time: seconds(g.utctime), lat: g.lat_err_deviation,
                                     lon: g.lon_err_deviation, alt: g.alt_err_deviation)
                }
                // A TPV always carries the mode; other reports (SKY, DEVICE...) do not.
                guard set & GPSMask.mode != 0 else { continue }
                lastTPV = MonotonicClock.now()
                let fix = makeFix(data.fix, hasTime: set & GPSMask.time != 0)
                // A replay's clock keeps pace with the receiver (see ReceiverPacing).
                let at = fix.time.isFinite && fix.mode >= 2 ? clock.observeReceiver(time: fix.time) : clock.now()
                sawFix = sawFix || fix.hasPosition
                setHealth(fix.hasPosition ? .ok : .noFix)
                for e in assembler.addTPV(fix, at: at) { deliver(e.fix, at: e.at) }
            } else {
                // gpsd is quiet between epochs: the epoch is complete.
                if let e = assembler.flush() { deliver(e.fix, at: e.at) }
                if MonotonicClock.now() - lastTPV > Self.silenceLimit * max(1, 1 / clock.speed) {
                    setHealth(.lost)
                }
            }
        }
        if let e = assembler.flush() { deliver(e.fix, at: e.at) }
        return delivered
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
