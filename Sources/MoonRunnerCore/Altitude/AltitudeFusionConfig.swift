import Glibc

/// Settings of the altitude fusion. Every value is a physical quantity of the
/// sensors or of a person on foot, not a fit to recordings.
public struct AltitudeFusionConfig: Sendable, Equatable {
    // MARK: GPS altitude (used alone when there is no barometer)

    /// Altitude changes smaller than this never count, metres.
    public var gpsMinimumBand: Double = 3
    /// ... and a climb must also exceed this many of the fix's own 1σ
    /// vertical error (GST, else from `epv`): the receiver says how far its
    /// altitude wanders, and a climb smaller than that cannot be told from it.
    /// Two: each swing counts in full from its turning point (`ClimbCounter`),
    /// so the band must span the wander itself, from about −1σ to +1σ. With
    /// one, the wander on the shared simulations' flat runs counted as 17–114 m
    /// of climb (truth 7–18 m), with two 0–89 m.
    public var gpsBandSigmas: Double = 2
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
    /// Climbs count on the running median of this many of the shape's blocks.
    /// A transient passes a running median of 2k + 1 values only if it lasts
    /// more than k of them: over nine, a gust must last longer than 4 s (the
    /// barometer traces' documented transients last 1–4 s; a 3–4 s gust
    /// passes the shape's median of five). The climb counts 4 s later, and the
    /// altitude shown keeps the shape. Without it a gust of 1–2 m counted as a
    /// climb and a descent: on the shared simulations 3.8 m of error in all
    /// (gain and loss, four runs) against 10.7.
    public var baroClimbMedianBlocks: Int = 9
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

    // MARK: Terrain model (a DEM under the track)

    /// Terrain altitude changes smaller than this never count on a DEM with
    /// postings 1″ (~30 m) apart, metres. What it must reject is the DEM's own
    /// roughness along a track, which real DEMs have at the scale of their
    /// postings: white noise of 0.5–1.5 m per posting (SRTM's speckle), whole
    /// metres in `.hgt` files, and the few metres a pixel reads high where
    /// trees or buildings stand beside the path. Every swing beyond the band
    /// counts in full from its turning point (`ClimbCounter`), so the band
    /// spans that roughness from a low posting to a high one. Cross-validated
    /// by scenario and by DEM error realisation (`Tests/Tools/eval_terrain.py
    /// --cv`, 2–5 m): 4 m on all data and in six of the eight folds (4.5 and
    /// 5 m in the other two), no figure missed either way.
    public var terrainBand: Double = 4
    /// The DEM's white noise per posting, metres (SRTM's speckle, ~1 m). A
    /// runner crosses three times as many 1″ postings as 3″ ones, and the rate
    /// at which noise crosses a band b goes as (postings crossed) ×
    /// exp(−b²/2σ²) (Rice): for the same rate on coarser postings the band is
    /// √(b₁² − 2σ² ln(spacing/1″)), 3.72 m at 3″ for 4 m at 1″.
    public var terrainSpeckle: Double = 1
    /// Where the terrain's relief over the last `terrainReliefWindow` metres
    /// is less than this, only climbs beyond it count, metres: about twice a
    /// DEM's 1σ error (2–5 m RMS), the most its errors alone make of flat
    /// ground over a kilometre (see `TerrainRelief`).
    public var terrainFlatRelief: Double = 8
    /// Metres of track the relief is taken over, and the spacing of its samples.
    public var terrainReliefWindow: Double = 1000
    public var terrainReliefStep: Double = 10
    /// 1σ of a DEM's elevation error, metres: 2–5 m RMS for SRTM and
    /// Copernicus in open terrain (their validation reports); the weight of the
    /// DEM as the barometer's level.
    public var terrainSigma: Double = 3
    /// Distance over which a DEM's errors stay correlated, metres (a few
    /// hundred): readings closer together than that are not independent
    /// evidence of the barometer's level.
    public var terrainCorrelation: Double = 300
    /// Where the altitude passes from GPS to the terrain model, the profile
    /// eases onto the DEM over this distance instead of stepping, metres: a
    /// 10 m difference becomes a 5 % grade, which a real path can have.
    public var terrainEase: Double = 200

    public init() {}

    /// The band for a DEM whose postings are `arcSeconds` apart (see `terrainSpeckle`).
    public func terrainBand(arcSeconds: Double) -> Double {
        let ratio = max(arcSeconds.isFinite ? arcSeconds : 1, 1)
        let squared = terrainBand * terrainBand - 2 * terrainSpeckle * terrainSpeckle * log(ratio)
        return max(squared, terrainBand * terrainBand / 4).squareRoot()
    }
}

extension AltitudeFusionConfig {
    /// The terrain settings by name (`analyze --terrain-option KEY=VALUE`), so that the evaluation
    /// can cross-validate them without rebuilding (`Tests/Tools/eval_terrain.py --cv`).
    public static let terrainSettingsByName: [String: @Sendable (inout AltitudeFusionConfig, Double) -> Void] = [
        "band_m": { $0.terrainBand = $1 }, "sigma_m": { $0.terrainSigma = $1 },
        "correlation_m": { $0.terrainCorrelation = $1 }, "ease_m": { $0.terrainEase = $1 },
        "flat_relief_m": { $0.terrainFlatRelief = $1 },
    ]
}
