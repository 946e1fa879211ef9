/// Settings of the altitude fusion. Every value is a physical quantity of the
/// sensors or of a person on foot, not a fit to recordings.
public struct AltitudeFusionConfig: Sendable, Equatable {
    // MARK: GPS altitude (used alone when there is no barometer)

    /// Altitude changes smaller than this never count, metres.
    public var gpsMinimumBand: Double = 3
    /// ... and a climb must also exceed this many of the fix's own 1σ
    /// vertical error (GST, else from `epv`): the receiver says how far its
    /// altitude wanders, and a climb smaller than that cannot be told from it.
    public var gpsBandSigmas: Double = 1
    /// Climb-rate noise of the GPS altitude filter, m/s^1.5: hills change the
    /// climb rate slowly; GPS altitude errors wander faster.
    public var climbNoise: Double = 0.004
    /// GPS altitude errors are correlated over minutes: widen their σ by this.
    public var altitudeErrorInflation: Double = 2
    /// 1σ of a GPS altitude without any error estimate, metres.
    public var defaultAltitudeSigma: Double = 10
    /// χ² (1 degree of freedom) above which a GPS altitude is an outlier.
    public var altitudeGate: Double = 16

    // MARK: Barometer

    /// Readings are averaged over blocks of this many seconds.
    public var baroBlock: Double = 1
    /// The shape is the running median of this many blocks: a gust or a door
    /// slamming (a pressure transient of a second or two) does not pass it.
    public var baroMedianBlocks: Int = 5
    /// Barometric altitude changes smaller than this never count, metres:
    /// about five times the noise of a one-second median (a body-worn
    /// BMP280 at ×16 oversampling: ~1.3 Pa RMS per reading, ~0.5 Pa slow
    /// wander; 1 Pa ≈ 8.4 cm at sea level).
    public var baroBand: Double = 0.25
    /// Faster than this the barometric altitude cannot change on foot (a fast
    /// lift is 3–5 m/s), m/s: a faster jump is a disturbance of the sensor
    /// (a sealed case opened, a pressure step), absorbed as a level shift.
    public var maxVerticalSpeed: Double = 5
    /// A reading repeated bit for bit this long is a frozen sensor (its noise
    /// alone changes the last digit every reading), seconds.
    public var frozenAfter: Double = 2
    /// Without an accepted reading for this long the barometer is not used, seconds.
    public var baroStaleAfter: Double = 3

    // MARK: Level (GPS correction of the barometer)

    /// How fast the weather moves the barometric level: ±0.6 hPa/h, about
    /// 5 m/h, as a random walk, metres per √hour.
    public var weatherDrift: Double = 5
    /// GPS altitude errors stay correlated this long, seconds: fixes closer
    /// together than that are not independent evidence of the level.
    public var gpsErrorCorrelation: Double = 60

    public init() {}
}
