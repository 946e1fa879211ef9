/// Settings of the GPS filter. The defaults describe a person on foot wearing
/// a consumer receiver; every value is a physical quantity, not a fit.
public struct GPSFilterConfig: Sendable, Equatable, Codable {
    // MARK: Seed gates

    /// Fixes whose 95 % horizontal error (`GPSErrorModel`) is above this are
    /// rejected, metres.
    public var maxAccuracy: Double = 30
    /// Fixes delivered later than this after their receiver time are rejected, seconds.
    public var maxAge: Double = 10
    /// Implied speeds above this are rejected (10.27 m/s: the sprint world record).
    public var maxSpeed: Double = 10.27
    /// The first fix after a start or a loss of fix is dropped.
    public var dropFirstFix: Bool = true

    // MARK: Gaps

    /// A gap without fixes longer than this is not bridged by the motion model, seconds.
    public var segmentGap: Double = 30
    /// Longer gaps count their straight line only up to this long, seconds.
    public var maxBridgedGap: Double = 600
    /// ... and only when a walk explains it: at most this speed (m/s) or
    /// `gapPaceFactor` × the pace before the gap, whichever is higher.
    public var gapWalkSpeed: Double = 1.5
    public var gapPaceFactor: Double = 1.5
    /// Gaps up to this long with the wearer moving before and after count at
    /// least the slower speed × the gap (a bend or a loop is longer than its
    /// chord), seconds.
    public var keptPaceGap: Double = 120

    // MARK: Error model

    /// White-acceleration noise of the motion model, m/s^1.5 (runners change
    /// speed by about 1 m/s within a second).
    public var accelerationNoise: Double = 1.0
    /// 1σ of a receiver's Doppler speed, m/s.
    public var dopplerSpeedSigma: Double = 0.25
    /// 1σ of its course over ground while moving, degrees.
    public var courseSigma: Double = 5
    /// GST's 1σ comes from the solution's residuals and leaves out slowly
    /// varying errors (multipath, atmosphere): the filter widens it by this
    /// factor before weighing a fix.
    public var gstErrorInflation: Double = 1.5
    /// gpsd's `eph`/`epv` without GST are DOP × ~19 m: two to three times the
    /// real 95 % error (`GPSErrorModel`). Set 1 for a receiver whose `eph` is honest.
    public var ephPessimism: Double = 2.5
    /// Floors and fallbacks of the per-axis 1σ, metres.
    public var minimumSigma: Double = 0.5
    public var defaultSigma: Double = 5

    // MARK: Outliers and motion

    /// χ² (2 degrees of freedom) above which a fix is an outlier while moving.
    public var outlierGate: Double = 16
    /// χ² above which a fix has left the spot the wearer stands on.
    public var departureGate: Double = 9
    /// Rejected fixes that agree with each other this long replace the track, seconds.
    public var reacquireAfter: Double = 5
    /// Doppler speed that says "moving", on `moveConfirmFixes` fixes in a row, m/s.
    public var moveSpeed: Double = 0.8
    public var moveConfirmFixes: Int = 2
    /// Doppler (or averaged) speed below which the wearer is slowing to a stop, m/s.
    public var stillSpeed: Double = 0.5
    /// Seconds below `stillSpeed` before standing still.
    public var stillDwell: Double = 3
    /// The median of the last five Doppler speeds at or above this is slow,
    /// steady progress (`SlowProgress`): below it while standing in every
    /// real log and simulation, above it for a hiker at 0.4 m/s, m/s.
    public var creepSpeed: Double = 0.3
    /// How fast the estimate of a standing position may wander, m/√s.
    public var stillDrift: Double = 0.05
    /// Window of the averaged speed used when the receiver gives no Doppler, seconds.
    public var speedWindow: Double = 10

    public init() {}

    /// How good a fix is, as the filter, the navigator and the altitude fusion all read it.
    public var errorModel: GPSErrorModel { GPSErrorModel(ephPessimism: ephPessimism) }

    private enum CodingKeys: String, CodingKey {
        case maxAccuracy, maxAge, maxSpeed, dropFirstFix, segmentGap, maxBridgedGap, gapWalkSpeed,
             gapPaceFactor, keptPaceGap, accelerationNoise, dopplerSpeedSigma, courseSigma, gstErrorInflation,
             ephPessimism, minimumSigma, defaultSigma, outlierGate, departureGate, reacquireAfter,
             moveSpeed, moveConfirmFixes, stillSpeed, stillDwell, stillDrift, speedWindow, creepSpeed
    }

    /// Every key is optional: a missing one keeps its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func d(_ k: CodingKeys, _ v: inout Double) throws {
            if let x = try c.decodeIfPresent(Double.self, forKey: k) { v = x }
        }
        try d(.maxAccuracy, &maxAccuracy)
        try d(.maxAge, &maxAge)
        try d(.maxSpeed, &maxSpeed)
        if let b = try c.decodeIfPresent(Bool.self, forKey: .dropFirstFix) { dropFirstFix = b }
        try d(.segmentGap, &segmentGap)
        try d(.maxBridgedGap, &maxBridgedGap)
        try d(.gapWalkSpeed, &gapWalkSpeed)
        try d(.gapPaceFactor, &gapPaceFactor)
        try d(.keptPaceGap, &keptPaceGap)
        try d(.accelerationNoise, &accelerationNoise)
        try d(.dopplerSpeedSigma, &dopplerSpeedSigma)
        try d(.courseSigma, &courseSigma)
        try d(.gstErrorInflation, &gstErrorInflation)
        try d(.ephPessimism, &ephPessimism)
        try d(.minimumSigma, &minimumSigma)
        try d(.defaultSigma, &defaultSigma)
        try d(.outlierGate, &outlierGate)
        try d(.departureGate, &departureGate)
        try d(.reacquireAfter, &reacquireAfter)
        try d(.moveSpeed, &moveSpeed)
        if let n = try c.decodeIfPresent(Int.self, forKey: .moveConfirmFixes) { moveConfirmFixes = n }
        try d(.stillSpeed, &stillSpeed)
        try d(.stillDwell, &stillDwell)
        try d(.stillDrift, &stillDrift)
        try d(.speedWindow, &speedWindow)
        try d(.creepSpeed, &creepSpeed)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(maxAccuracy, forKey: .maxAccuracy)
        try c.encode(maxAge, forKey: .maxAge)
        try c.encode(maxSpeed, forKey: .maxSpeed)
        try c.encode(dropFirstFix, forKey: .dropFirstFix)
        try c.encode(segmentGap, forKey: .segmentGap)
        try c.encode(maxBridgedGap, forKey: .maxBridgedGap)
        try c.encode(gapWalkSpeed, forKey: .gapWalkSpeed)
        try c.encode(gapPaceFactor, forKey: .gapPaceFactor)
        try c.encode(keptPaceGap, forKey: .keptPaceGap)
        try c.encode(accelerationNoise, forKey: .accelerationNoise)
        try c.encode(dopplerSpeedSigma, forKey: .dopplerSpeedSigma)
        try c.encode(courseSigma, forKey: .courseSigma)
        try c.encode(gstErrorInflation, forKey: .gstErrorInflation)
        try c.encode(ephPessimism, forKey: .ephPessimism)
        try c.encode(minimumSigma, forKey: .minimumSigma)
        try c.encode(defaultSigma, forKey: .defaultSigma)
        try c.encode(outlierGate, forKey: .outlierGate)
        try c.encode(departureGate, forKey: .departureGate)
        try c.encode(reacquireAfter, forKey: .reacquireAfter)
        try c.encode(moveSpeed, forKey: .moveSpeed)
        try c.encode(moveConfirmFixes, forKey: .moveConfirmFixes)
        try c.encode(stillSpeed, forKey: .stillSpeed)
        try c.encode(stillDwell, forKey: .stillDwell)
        try c.encode(stillDrift, forKey: .stillDrift)
        try c.encode(speedWindow, forKey: .speedWindow)
        try c.encode(creepSpeed, forKey: .creepSpeed)
    }
}
