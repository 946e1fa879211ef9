/// The ride's auto-pause: a bike computer's rule, on the receiver's speed alone.
///
/// A rider's body says little about the bike: pedalling is no step, a rider
/// coasting downhill is still, a rider waiting at a light fidgets. What tells
/// is the wheels' speed, which the receiver measures by Doppler to a tenth of a
/// metre per second (a standing receiver reads 0.1–0.2 m/s of noise, never
/// near 1 m/s). So: below `below` m/s for `dwell` seconds pauses, back-dated to
/// the last fix at speed; two fixes in a row at or above it resume, from the
/// first of them (one fix could be a jolt of the receiver). A receiver without
/// Doppler falls back on the GPS filter's moving verdict.
///
/// Pure value, O(1) state; times are the engine clock's.
public struct WheelPause: Sendable {
    /// The rule's two numbers (see `ActivityProfile+Table.swift` for why).
    public struct Rule: Sendable, Equatable, Codable {
        /// m/s.
        public var below: Double
        /// Seconds.
        public var dwell: Double

        public init(below: Double, dwell: Double) {
            self.below = below
            self.dwell = dwell
        }
    }

    public let rule: Rule
    /// The last fix at speed, and the first of the current run of such fixes.
    private(set) var lastFast = -Double.infinity
    private var fastSince = Double.nan
    private var fastRun = 0

    public init(rule: Rule) {
        self.rule = rule
    }

    /// One fix: the receiver's Doppler speed (NaN without) and the filter's verdict.
    /// Returns when the wheels have turned again (the first fix of two at speed), if they have.
    mutating func fix(speed: Double, moving: Bool, at t: Double) -> Double? {
        let fast = speed.isFinite ? speed >= rule.below : moving
        guard fast else {
            fastRun = 0
            fastSince = .nan
            return nil
        }
        if fastRun == 0 { fastSince = t }
        fastRun += 1
        lastFast = t
        return fastRun >= 2 ? fastSince : nil
    }

    /// True once the wheels have been slow for the dwell (since `lastFast`, or `origin` when later).
    func stopped(at t: Double, origin: Double) -> Bool {
        t - max(lastFast, origin) >= rule.dwell
    }
}
