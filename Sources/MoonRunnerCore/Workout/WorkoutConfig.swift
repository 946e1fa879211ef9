/// The workout runner's settings: when a step ends besides its own end,
/// and when the alerts speak.
///
/// Five of the alerts' numbers are meant to be tuned (`paceSmoothing`,
/// `alertAfter`, `paceTolerance`, `leak`, `okAfter`, with `hrTolerance`)
/// by `Tests/Tools/eval_workout.py --cv` over the simulated interval
/// sessions of `Tests/Tools/sim_workout.py`: picked on two thirds, checked
/// on the third held out: the sweep of 3 376 settings picks these, but for a
/// 3 s smoothing, on the 11 training sessions and on all 16; both meet every
/// target on the 5 held out (docs/accuracy.md, "Workouts"). The others have
/// their physical reasons beside them.
public struct WorkoutConfig: Sendable, Equatable {
    /// Time constants of the smoothing of each measure, s. GPS speed is
    /// noisy by ±0.1–0.3 m/s second to second (more under trees), several
    /// times a pace band's half-width (3:50–4:00/km is ±0.09 m/s); 4 s is
    /// the middle of the plateau of 3–8 s where no target is missed (tuned).
    /// A strap's heart rate is already averaged over beats; cadence is
    /// counted over steps.
    public var paceSmoothing = 4.0
    public var hrSmoothing = 3.0
    public var cadenceSmoothing = 4.0
    /// How far beyond the band the smoothed measure must be to count as
    /// out of it: a fraction of the band's edge for pace (1.5 % is 3.5 s/km
    /// at 4:00/km; tuned: at 0 the smoothed speed's wander gives dozens of
    /// false alerts, from 1 % none), bpm for heart rate (tuned: 0, a strap's
    /// reading is not noisy enough to need one, and 2 bpm made alerts on a
    /// slow drift 30–50 s late), steps/min for cadence.
    public var paceTolerance = 0.015
    public var hrTolerance = 0.0
    public var cadenceTolerance = 3.0
    /// Seconds out of the band, on one side, before `target_low`/`high`
    /// (tuned: with the smoothing an alert comes 10–17 s after the runner
    /// leaves the band, "about 15 s out of range"; 6–8 s raised false ones);
    /// time back inside takes it down `leak` times as fast, so that a
    /// second of noise inside does not start the count afresh (tuned:
    /// 0.5–2 do alike).
    public var alertAfter = 10.0
    public var leak = 1.0
    /// Seconds inside the band (itself, no tolerance) before `target_ok`
    /// (tuned: 2 s said "back on pace" at a runner flickering across the edge).
    public var okAfter = 4.0
    /// No second alert within this many seconds of the last one.
    public var quiet = 30.0
    /// No alert in a step's first seconds (on its clock), nor in the
    /// seconds after the wearer sets off again: the wearer is still
    /// changing pace.
    public var stepGrace = 10.0
    public var resumeGrace = 10.0
    /// A heart-rate target's grace: heart rate takes about a minute to
    /// reach a new effort's level (it rises with a time constant of 20–30 s).
    public var hrStepGrace = 60.0
    /// Seconds at the start of a step, and after setting off, whose speed
    /// and cadence are not smoothed into the measure: the change of pace (a
    /// runner reaches a new pace in 3–4 s at 1.2 m/s²). The measure is the
    /// plain mean after it until it spans the smoothing's time constant.
    public var settle = 5.0
    /// Below this speed (m/s) the wearer is standing, whether or not
    /// auto-pause has decided it yet: GPS speed at a stop is its noise
    /// (0.1–0.5 m/s in the simulations, more under trees), and the slowest
    /// walk is about 1.1 m/s. A stop neither counts as too slow nor feeds
    /// the smoothing, and setting off again starts `resumeGrace` (pace and
    /// cadence; a strap's heart rate is judged at a walk too).
    public var stillSpeed = 1.0
    /// A distance step ends where the wearer stops (auto-pause or pause)
    /// within this share of its distance, or this many metres, of its end:
    /// GPS counts a lap of a track 1–2 % short (measured on the simulated
    /// track and park sessions), and a runner standing at the line is done.
    public var stopAtMark = 0.03
    public var stopAtMarkMetres = 10.0
    /// Seconds below `stillSpeed` that are a stop at the mark before
    /// auto-pause says so: GPS speed dips under trees for a fix, not for two.
    public var standingAfter = 2.0
    /// Seconds a heart rate must stay beyond a step's heart-rate end before
    /// the step ends: a strap's contact spike lasts a reading or two.
    public var hrHold = 3.0
    /// A heart rate older than this many seconds is no reading.
    public var hrStale = 5.0

    public init() {}

    func tolerance(_ m: TargetMeasure, edge: Double) -> Double {
        switch m {
        case .pace: paceTolerance * edge
        case .hr: hrTolerance
        case .cadence: cadenceTolerance
        }
    }
}
