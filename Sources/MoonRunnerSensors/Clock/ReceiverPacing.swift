/// Keeps a replay's engine clock in step with the GPS receiver's clock.
///
/// A replay runs the daemon's clock N× fast while gpsfake feeds gpsd at its own
/// pace, which is never quite N×: it sleeps between sentences and every sentence
/// costs a little more (measured here: 18.2× for a nominal 20×, 9 % slow). A free
/// engine clock then drifts ahead of the receiver and the replayed IMU trace
/// with it — by 94 s over a 16-minute run — and the core sees a wearer whose
/// steps and fixes disagree. Following the receiver keeps them together:
///
/// * the first timed report fixes `offset` (receiver time minus engine time);
/// * after each report the clock may run at most one report interval past the
///   receiver time it has seen (`ceiling`): a slower feed makes it wait, for at
///   most `maxStall` real seconds (a feed that stopped does not stop the daemon);
/// * a report that comes early pulls the clock forward, by at most `maxStep`
///   engine seconds at a time (a bigger jump would overflow the emulated
///   FIFO, which keeps under two seconds);
/// * the client stamps each fix with the engine time `offset` maps its
///   receiver time to (`engineTime(of:)`), not with when it came: the core
///   then learns exactly the UTC offset the replayed IMU trace is placed with,
///   and sees fix and steps as they were recorded, whatever the feed's jitter.
///
/// Pure: times are passed in (engine seconds, real monotonic seconds).
public struct ReceiverPacing: Sendable, Equatable {
    /// Receiver time minus engine time; nil before the first timed report.
    public private(set) var offset: Double?
    /// Engine time the clock may not pass until the next report.
    public private(set) var ceiling = Double.infinity
    private var ceilingSetAt = -Double.infinity
    private var lastReceiverTime = Double.nan
    /// Receiver seconds between reports (1 Hz unless seen otherwise).
    private var interval = 1.0

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
            ceiling = engine + interval
            ceilingSetAt = real
            return engine
        }
        if time > lastReceiverTime {
            interval = min(2, max(0.05, time - lastReceiverTime))
            lastReceiverTime = time
        }
        let target = lastReceiverTime - offset
        ceiling = target + interval
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
