/// Keeps a replay's engine clock in step with the GPS receiver's clock.
///
/// A replay runs the daemon's clock N× fast while gpsfake feeds gpsd at its
/// own, slower pace (18.2× for a nominal 20×, measured here), so a free clock
/// drifts ahead of the receiver and the replayed IMU trace with it (94 s over
/// a 16-minute run): steps and fixes disagree. So the first timed report sets
/// `offset`; the clock runs at most one report interval past the receiver,
/// plus `readLead` (`ceiling`), waiting at most `maxStall` real seconds for a slow feed; an
/// early report pulls it forward by at most `maxStep` (the emulated FIFO keeps
/// under 2 s); and each fix is stamped with the engine time of its receiver
/// time (`engineTime(of:)`), not its arrival, so fixes and steps stay as
/// recorded whatever the jitter. Pure: engine and real seconds are passed in.
public struct ReceiverPacing: Sendable, Equatable {
    /// Receiver time minus engine time; nil before the first timed report.
    public private(set) var offset: Double?
    /// Engine time the clock may not pass until the next report.
    public private(set) var ceiling = Double.infinity
    private var ceilingSetAt = -Double.infinity
    private var lastReceiverTime = Double.nan
    /// Receiver seconds between reports (1 Hz unless seen otherwise).
    private var interval = 1.0

    /// How late a report may be seen: the gpsd client reads an epoch's
    /// reports together, `EpochGather` after the first came (under a second).
    public static let readLead = 1.0
    public static let maxStall = 0.5
    public static let maxStep = 0.5
    /// Receiver seconds without a report after which its time is taken afresh.
    public static let maxGap = 600.0

    public init() {}

    /// A report with receiver time `time` arrived when the engine clock read
    /// `engine` (real monotonic time `real`). Returns the engine time the clock
    /// should read now (never earlier than `engine`).
    public mutating func observe(receiverTime time: Double, engine: Double, real: Double) -> Double {
        guard time.isFinite else { return engine }
        guard let offset, time >= lastReceiverTime - 2 * interval, time <= lastReceiverTime + Self.maxGap else {
            // The first report, or the receiver's time jumped (a log replayed
            // again from its start, a week roll-over): take its clock afresh.
            self.offset = time - engine
            lastReceiverTime = time
            ceiling = engine + interval + Self.readLead
            ceilingSetAt = real
            return engine
        }
        if time > lastReceiverTime {
            interval = min(2, max(0.05, time - lastReceiverTime))
            lastReceiverTime = time
        }
        let target = lastReceiverTime - offset
        ceiling = target + interval + Self.readLead
        ceilingSetAt = real
        return target > engine ? min(target, engine + Self.maxStep) : engine
    }

    /// The engine instant of receiver time `time` (nil before the first report).
    public func engineTime(of time: Double) -> Double? { offset.map { time - $0 } }

    /// The engine time the clock may show when it would read `engine` at real time `real`.
    public func limit(_ engine: Double, real: Double) -> Double {
        guard engine > ceiling, real - ceilingSetAt < Self.maxStall else { return engine }
        return ceiling
    }
}
