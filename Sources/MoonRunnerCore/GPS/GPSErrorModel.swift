import Glibc

/// How far a fix may lie from the truth, read the same way by everything
/// that weighs fixes: the GPS filter (its accuracy gate, its signal grade and
/// its Kalman weights), the course navigator and the altitude fusion.
///
/// * A receiver's own 1σ (gpsd's GST: `std_lat`, `std_lon`, `std_alt`) is
///   taken as it is.
/// * Without it, gpsd's `eph` and `epv` are 95 % figures (gpsd_json(5): epx,
///   epy and epv "95% confidence"), made from DOP × a range error of ~19 m:
///   two to three times the real error, so they are divided by
///   `ephPessimism` before they become a 1σ.
///
/// O(1), no state: a fix in, its error out.
public struct GPSErrorModel: Sendable, Equatable {
    /// The radius that holds 95 % of a circular two-dimensional normal error,
    /// in σ of one axis: P(r ≤ kσ) = 1 − exp(−k²/2) = 0.95 gives
    /// k = √(−2 ln 0.05) = 2.4477, which gpsd's table of confidence factors
    /// gives as 2.45 (HACKING, "Error modeling"). gpsd's figure is kept: the
    /// 0.09 % between the two is far inside how well any receiver knows its
    /// error, and fixes are weighed exactly as the evaluations measured them.
    public static let sigmasIn95PercentRadius = 2.45
    /// The half-width of the interval that holds 95 % of a one-dimensional
    /// normal error, in σ: Φ⁻¹(0.975) = 1.95996 (`epv` is such a figure).
    public static let sigmasIn95PercentInterval = 1.959_963_984_540_054

    /// gpsd's `eph`/`epv` over the real 95 % error (see the type's doc).
    /// 1 for a receiver whose figures are honest.
    public var ephPessimism: Double

    public init(ephPessimism: Double = 2.5) {
        self.ephPessimism = ephPessimism
    }

    /// A fix's horizontal error; nil when the fix says nothing of it.
    public func horizontal(of fix: GPSFix) -> HorizontalError? {
        if fix.stdLat.isFinite && fix.stdLon.isFinite {
            let sigma = ((fix.stdLat * fix.stdLat + fix.stdLon * fix.stdLon) / 2).squareRoot()
            return HorizontalError(east: fix.stdLon, north: fix.stdLat, sigma: sigma,
                                   radius95: Self.sigmasIn95PercentRadius * sigma, fromReceiver: true)
        }
        guard fix.eph.isFinite else { return nil }
        let radius95 = fix.eph / ephPessimism
        let sigma = radius95 / Self.sigmasIn95PercentRadius
        return HorizontalError(east: sigma, north: sigma, sigma: sigma, radius95: radius95, fromReceiver: false)
    }

    /// A fix's vertical 1σ, metres; NaN when the fix says nothing of it.
    public func verticalSigma(of fix: GPSFix) -> Double {
        if fix.stdAlt.isFinite { return fix.stdAlt }
        if fix.epv.isFinite { return fix.epv / ephPessimism / Self.sigmasIn95PercentInterval }
        return .nan
    }
}

/// A fix's horizontal error as `GPSErrorModel` reads it, metres.
public struct HorizontalError: Sendable, Equatable {
    /// 1σ along each axis.
    public var east: Double
    public var north: Double
    /// 1σ of one axis, the two's root mean square.
    public var sigma: Double
    /// The radius that holds the fix with 95 % probability.
    public var radius95: Double
    /// The receiver's own 1σ (GST), not a figure made from DOP.
    public var fromReceiver: Bool
}
