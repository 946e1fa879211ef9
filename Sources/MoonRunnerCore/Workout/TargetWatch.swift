#if canImport(Glibc)
import Glibc
#endif

/// The alert state of the current step's target: the smoothed measures,
/// which side the measure has been out on and for how long, the alert
/// standing and when the last was given. Codable, as part of the runner's
/// snapshot. O(1) per update, no allocation.
struct TargetWatch: Sendable, Equatable, Codable {
    enum Side: String, Sendable, Codable { case low, high }

    /// Exponentially smoothed speed (m/s), heart rate, cadence; nil before a value.
    var speed: Double?
    var hr: Double?
    var cadence: Double?
    var hrTime: Double?
    var outSide: Side?
    var outFor = 0.0
    var okFor = 0.0
    var alerted: Side?
    var lastAlert: Double?
    var movingSince: Double?

    /// Smooths the measures of one update `dt` seconds after the last.
    /// Speed and cadence only count while moving (at a stop they are noise;
    /// a NaN speed, no GPS, is no stop).
    mutating func smooth(_ x: WorkoutInput, dt: Double, config c: WorkoutConfig) {
        let moving = x.motion == .moving && !(x.speed < c.stillSpeed)
        if moving, x.speed.isFinite { speed = Self.ema(speed, x.speed, dt: dt, tau: c.paceSmoothing) }
        if moving, x.cadence.isFinite { cadence = Self.ema(cadence, x.cadence, dt: dt, tau: c.cadenceSmoothing) }
        if x.heartRate.isFinite {
            hr = Self.ema(hr, x.heartRate, dt: dt, tau: c.hrSmoothing)
            hrTime = x.time
        }
    }

    private static func ema(_ old: Double?, _ v: Double, dt: Double, tau: Double) -> Double {
        guard let old, tau > 0 else { return v }
        return old + (v - old) * (1 - exp(-max(0, dt) / tau))
    }

    /// The smoothed measure at `t`; nil when there is none (or the heart rate is stale).
    func value(_ m: TargetMeasure, at t: Double, config c: WorkoutConfig) -> Double? {
        switch m {
        case .pace: speed
        case .cadence: cadence
        case .hr: hrTime.map { t - $0 <= c.hrStale } == true ? hr : nil
        }
    }

    /// A new step: its target starts unjudged (the last alert's time stays,
    /// so that a new step cannot bring an alert on the heels of the last).
    mutating func stepChanged() {
        outSide = nil
        outFor = 0
        okFor = 0
        alerted = nil
    }

    /// Judges the measure against `band` over the last `dt` seconds (the
    /// part of the update after the graces); returns the alert to give, if
    /// any. `settled` is false while stopped and in the graces.
    mutating func judge(_ band: TargetBand, value: Double?, dt: Double, at t: Double, settled: Bool,
                        config c: WorkoutConfig) -> WorkoutEventKind? {
        guard let value, settled else {
            outSide = nil
            outFor = 0
            okFor = 0
            return nil
        }
        guard dt > 0 else { return nil }
        let side: Side? = value < band.low - c.tolerance(band.measure, edge: band.low) ? .low
            : value > band.high + c.tolerance(band.measure, edge: band.high) ? .high : nil
        if let side {
            // Capped at the dwell: an hour out of the band is no reason to stay "out" longer once back.
            outFor = min(c.alertAfter, side == outSide ? outFor + dt : dt)
            outSide = side
        } else {
            outFor = max(0, outFor - c.leak * dt)
            if outFor == 0 { outSide = nil }
        }
        if alerted != nil {
            okFor = value >= band.low && value <= band.high ? okFor + dt : 0
            if okFor >= c.okAfter {
                alerted = nil
                okFor = 0
                outSide = nil
                outFor = 0
                return .targetOK
            }
        }
        guard let out = outSide, outFor >= c.alertAfter, alerted != out,
              lastAlert.map({ t - $0 >= c.quiet }) ?? true else { return nil }
        alerted = out
        okFor = 0
        lastAlert = t
        return out == .low ? .targetLow : .targetHigh
    }

    private enum CodingKeys: String, CodingKey {
        case speed = "speed_mps", hr = "hr_bpm", cadence = "cadence_spm", hrTime = "hr_time", outSide = "out_side",
             outFor = "out_s", okFor = "ok_s", alerted, lastAlert = "last_alert", movingSince = "moving_since"
    }
}
