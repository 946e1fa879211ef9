/// The workout runner's settings: when a step ends besides its own end,
/// and when the alerts speak. The alerts' defaults were chosen on simulated
/// interval sessions (`Tests/Tools/sim_workout.py`, scored by
/// `eval_workout.py`): picked on two thirds of them and checked on the
/// held-out third (README, "Workouts").
public struct WorkoutConfig: Sendable, Equatable {
    /// Time constants of the smoothing of each measure, s. GPS speed is
    /// noisy by ±0.1–0.3 m/s second to second (more under trees), several
    /// times a pace band's half-width (3:50–4:00/km is ±0.09 m/s); a strap's
    /// heart rate is already averaged over beats; cadence is counted over steps.
    public var paceSmoothing = 6.0
    public var hrSmoothing = 3.0
    public var cadenceSmoothing = 4.0
    /// How far beyond the band the smoothed measure must be to count as
    /// out of it: a fraction of the band's edge for pace (1.5 % is 3.5 s/km
    /// at 4:00/km), bpm for heart rate, steps/min for cadence.
    public var paceTolerance = 0.015
    public var hrTolerance = 2.0
    public var cadenceTolerance = 3.0
    /// Seconds out of the band, on one side, before `target_low`/`high`;
    /// time back inside takes it down `leak` times as fast, so that a
    /// second of noise inside does not start the count afresh.
    public var alertAfter = 10.0
    public var leak = 1.0
    /// Seconds inside the band (itself, no tolerance) before `target_ok`.
    public var okAfter = 4.0
    /// No second alert within this many seconds of the last one.
    public var quiet = 30.0
    /// No alert in a step's first seconds (on its clock), nor in the
    /// seconds after the wearer sets off again: the wearer is still
    /// changing pace.
    public var stepGrace = 10.0
    public var resumeGrace = 10.0
    /// Below this speed (m/s) the wearer is standing, whether or not
    /// auto-pause has decided it yet: GPS speed at a stop is its noise
    /// (0.1–0.5 m/s in the simulations, more under trees), and the slowest
    /// walk is about 1.1 m/s. A stop neither counts as too slow nor feeds
    /// the smoothing, and setting off again starts `resumeGrace`.
    public var stillSpeed = 1.0
    /// A distance step ends where the wearer stops (auto-pause or pause)
    /// within this share of its distance, or this many metres, of its end:
    /// GPS counts a lap of a track 1–2 % short (measured on the simulated
    /// track and park sessions), and a runner standing at the line is done.
    public var stopAtMark = 0.03
    public var stopAtMarkMetres = 10.0
    /// Seconds a heart rate must stay beyond a step's heart-rate end before
    /// the step ends: a strap's contact spike lasts a reading or two.
    public var hrHold = 3.0
    /// A heart rate older than this many seconds is no reading.
    public var hrStale = 5.0

    public init() {}

    func smoothing(_ m: TargetMeasure) -> Double {
        switch m {
        case .pace: paceSmoothing
        case .hr: hrSmoothing
        case .cadence: cadenceSmoothing
        }
    }

    func tolerance(_ m: TargetMeasure, edge: Double) -> Double {
        switch m {
        case .pace: paceTolerance * edge
        case .hr: hrTolerance
        case .cadence: cadenceTolerance
        }
    }
}
