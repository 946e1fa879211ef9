import MoonRunnerCore

/// How a recorded trace is sampled at instants that fall between its samples.
public enum TraceResampling: Sendable, Equatable {
    /// Straight line between the neighbouring samples.
    case linear
    /// The most recent sample at or before the instant (zero-order hold).
    case hold
}

/// Plays a sample source against a device clock: answers "what did the sensor
/// feel at device time τ?" by streaming the source forward and resampling it.
///
/// The trace's first sample is placed at the device time playback starts. A
/// trace in UNIX time played with an `anchor` is placed on the receiver's
/// clock instead (its sample at `x` plays on the device tick nearest to the
/// receiver's time `x`; the first sample is held until then), so a replayed
/// IMU trace stays beside the GPS log it was recorded with. Memory is O(1).
/// Across a gap longer than `maxInterpolationGap` the value is held; after
/// the end the last sample is held (a real sensor keeps sampling) and
/// `endDeviceTime` says where the recording stopped.
struct TracePlayback {
    private var source: (any IMUSampleSource)?
    private let reopen: (@Sendable () throws -> any IMUSampleSource)?
    let resampling: TraceResampling
    let maxInterpolationGap = 0.5
    /// Receiver time minus device time, once known (nil: play from the start, unanchored).
    private let anchor: (@Sendable () -> Double?)?
    /// Traces stamped after this are on an absolute (UNIX) clock.
    static let absoluteAfter = 1e9
    private var primed = false

    /// Trace time = device time + offset.
    private var offset = 0.0
    private(set) var started = false
    /// Device time at which the trace's first sample played.
    private(set) var startDeviceTime: Double?
    /// Newest sample at or before the last query, and the one after it.
    private var before: IMUSample?
    private var after: IMUSample?
    /// Interval between the last two samples seen (used to space loop repetitions).
    private var lastInterval = 0.0
    private(set) var ended = false
    /// Device time of the trace's last sample, once the end has been reached.
    private(set) var endDeviceTime: Double?
    private(set) var error: String?
    private(set) var loops = 0

    init(source: (any IMUSampleSource)?, reopen: (@Sendable () throws -> any IMUSampleSource)?,
         resampling: TraceResampling, anchor: (@Sendable () -> Double?)? = nil) {
        self.source = source
        self.reopen = reopen
        self.resampling = resampling
        self.anchor = anchor
    }

    var hasSource: Bool { source != nil }

    /// Places the trace's first sample at device time `t`.
    mutating func start(at t: Double) {
        guard !started else { return }
        started = true
        startDeviceTime = t
        guard source != nil else { return }
        prime()
        guard let first = before else {
            ended = true
            endDeviceTime = t
            return
        }
        offset = first.t - t
    }

    /// Starts the playback if it is due at device tick `tick` (ticks every `period`):
    /// at once for an unanchored trace, when the receiver's time reaches the trace's
    /// first instant for an anchored one. False while it is not due yet.
    mutating func startIfDue(at tick: Double, period: Double) -> Bool {
        if started { return true }
        guard waitsForReceiver(), let anchor, let first = before else {
            start(at: tick)
            return true
        }
        guard let receiverOffset = anchor() else { return false }
        // The device tick nearest to the trace's first instant.
        let k = ((first.t - receiverOffset - tick) / period).rounded()
        guard k <= 0 else { return false }
        started = true
        let firstTick = tick + k * period
        startDeviceTime = firstTick
        offset = first.t - firstTick
        return true
    }

    /// Whether the trace is stamped in UNIX time and played on the receiver's
    /// clock (an anchor is given): then nothing plays before the receiver
    /// reports. Reads the trace's first sample (once).
    mutating func waitsForReceiver() -> Bool {
        guard anchor != nil, source != nil else { return false }
        prime()
        return (before?.t ?? 0) > Self.absoluteAfter
    }

    /// The trace's first sample, once primed (an anchored trace waiting for its time).
    var firstSample: IMUSample? { started || !primed ? nil : before }

    private mutating func prime() {
        guard !primed else { return }
        primed = true
        before = pull()
        after = pull()
    }

    /// The trace value at device time `t` (its `t` field is the trace time); after the end,
    /// the last sample; nil without a source, before `start` or for an empty trace.
    /// Queries must not go backwards in time.
    mutating func sample(at t: Double) -> IMUSample? {
        guard source != nil, started else { return nil }
        if ended { return before }
        while true {
            let x = t + offset
            guard let a = before else {
                ended = true
                endDeviceTime = t
                return nil
            }
            if x < a.t { return a }   // before the first sample: hold it
            if let b = after {
                // Ticks and trace samples coincide when the rates match: a microsecond of
                // rounding must not turn sample k into sample k - 1.
                if b.t <= x + 1e-6 {
                    if b.t > a.t { lastInterval = b.t - a.t }
                    before = b
                    after = pull()
                    continue
                }
                return interpolate(a, b, x)
            }
            // Source exhausted: the last sample is still current exactly at its own time.
            if x <= a.t + 1e-6 { return a }
            if !restart(last: a) {
                ended = true
                endDeviceTime = a.t - offset
                return a
            }
        }
    }

    private func interpolate(_ a: IMUSample, _ b: IMUSample, _ x: Double) -> IMUSample {
        let span = b.t - a.t
        if resampling == .hold || span <= 0 || span > maxInterpolationGap || x <= a.t { return a }
        let w = (x - a.t) / span
        @inline(__always) func mix(_ p: Double, _ q: Double) -> Double { p + (q - p) * w }
        return IMUSample(t: x, ax: mix(a.ax, b.ax), ay: mix(a.ay, b.ay), az: mix(a.az, b.az),
                         gx: mix(a.gx, b.gx), gy: mix(a.gy, b.gy), gz: mix(a.gz, b.gz))
    }

    /// Loops back to the start of the trace, one sample interval after its last sample.
    private mutating func restart(last: IMUSample) -> Bool {
        guard let reopen else { return false }
        do {
            source = try reopen()
        } catch {
            self.error = "cannot reopen trace for looping: \(error)"
            return false
        }
        guard let first = pull() else { return false }
        let interval = lastInterval > 0 ? lastInterval : 0.01
        // Device time of `last` stays where it was; the new first sample comes one interval later.
        let lastDevice = last.t - offset
        offset = first.t - (lastDevice + interval)
        before = first
        after = pull()
        loops += 1
        return true
    }

    private mutating func pull() -> IMUSample? {
        guard var s = source else { return nil }
        defer { source = s }
        do {
            return try s.next()
        } catch {
            self.error = "\(error)"
            return nil
        }
    }
}
