#if canImport(Glibc)
import Glibc
#endif

/// The alert state of the current step's target: the smoothed measures,
/// which side the measure has been out on and for how long, the alert
/// standing and when the last was given. Codable, as part of the runner's
/// snapshot. O(1) per update, no allocation.
struct TargetWatch: Sendable, Equatable, Codable {
    enum Side: String, Sendable, Codable { case low, high }

    /// Smoothed speed (m/s), heart rate, cadence; nil before a value. Speed
    /// and cadence start afresh with each step and each setting off.
    var speed: Double?
    var hr: Double?
    var cadence: Double?
    /// Seconds of samples in `speed` and `cadence` since they started afresh.
    var paceAge = 0.0
    var hrTime: Double?
    var outSide: Side?
    var outFor = 0.0
    var okFor = 0.0
    var alerted: Side?
    var lastAlert: Double?
    var movingSince: Double?

    /// Smooths the step's measure, `measure`, over one update `dt` seconds
    /// after the last; the others are not judged, so not kept (a step with a
    /// target of its own starts them afresh, and an untargeted step costs
    /// no smoothing). Speed and cadence are taken only when `settled`:
    /// moving, and past the change of pace that begins a step or a setting
    /// off (before it they would drag the mean of the new pace for many seconds).
    mutating func smooth(_ x: WorkoutInput, measure: TargetMeasure?, dt: Double, settled: Bool,
                         config c: WorkoutConfig) {
        switch measure {
        case .pace?:
            cadence = nil
            hr = nil
            guard settled, x.speed.isFinite else { return }
            paceAge += max(0, dt)
            speed = Self.mean(speed, x.speed, dt: dt, age: paceAge, tau: c.paceSmoothing)
        case .cadence?:
            speed = nil
            hr = nil
            guard settled, x.cadence.isFinite else { return }
            paceAge += max(0, dt)
            cadence = Self.mean(cadence, x.cadence, dt: dt, age: paceAge, tau: c.cadenceSmoothing)
        case .hr?:
            speed = nil
            cadence = nil
            guard x.heartRate.isFinite else { return }
            hr = Self.mean(hr, x.heartRate, dt: dt, age: .infinity, tau: c.hrSmoothing)
            hrTime = x.time
        case nil:
            speed = nil
            cadence = nil
            hr = nil
        }
    }

    /// Starts speed and cadence afresh (a new step, a stop).
    mutating func restartPace() {
        speed = nil
        cadence = nil
        paceAge = 0
    }

    /// The mean of the samples so far while they span less than `tau`
    /// seconds, then an exponential mean with time constant `tau`: settled
    /// as soon as it has a few samples, and no older than `tau` after.
    private static func mean(_ old: Double?, _ v: Double, dt: Double, age: Double, tau: Double) -> Double {
        guard let old, tau > 0, dt > 0 else { return old ?? v }
        let weight = age < tau ? min(1, dt / age) : 1 - exp(-dt / tau)
        return old + (v - old) * weight
    }

    /// The smoothed measure at `t`; nil when there is none (or the heart rate is stale).
    func value(_ m: TargetMeasure, at t: Double, config c: WorkoutConfig) -> Double? {
        switch m {
        case .pace: speed
        case .cadence: cadence
        case .hr: hrTime.map { t - $0 <= c.hrStale } == true ? hr : nil
        }
    }

    /// A new step: its target starts unjudged and its pace afresh (the last
    /// alert's time stays, so that a new step cannot bring an alert on the
    /// heels of the last).
    mutating func stepChanged() {
        outSide = nil
        outFor = 0
        okFor = 0
        alerted = nil
        restartPace()
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
        case speed = "speed_mps", hr = "hr_bpm", cadence = "cadence_spm", paceAge = "pace_age_s", hrTime = "hr_time",
             outSide = "out_side",
             outFor = "out_s", okFor = "ok_s", alerted, lastAlert = "last_alert", movingSince = "moving_since"
    }
}
