/// The five activities' rules. Each number says where it comes from.
///
/// | activity    | steps | GPS gates                 | auto-pause                               | calories              | shown as | splits    | badges        | FIT            | TCX     | GPX           |
/// |-------------|-------|---------------------------|------------------------------------------|-----------------------|----------|-----------|---------------|----------------|---------|---------------|
/// | `run`       | yes   | configured (10.27 m/s)    | on foot, configured dwells               | ACSM running          | pace     | 1 km/mi   | solar system  | running        | Running | running       |
/// | `trail_run` | yes   | configured (10.27 m/s)    | on foot, configured dwells               | ACSM running          | pace     | 1 km/mi   | solar system  | running/trail  | Running | trail_running |
/// | `walk`      | yes   | configured (10.27 m/s)    | on foot, configured dwells               | ACSM walking          | pace     | 1 km/mi   | solar system  | walking        | Other   | walking       |
/// | `hike`      | yes   | configured (10.27 m/s)    | on foot, still 6 s with an IMU, 15 s without | Pandolf (1977)    | pace     | 1 km/mi   | solar system  | hiking         | Other   | hiking        |
/// | `ride`      | no    | 25 m/s, 2.5 m/s^1.5       | below 1 m/s for 3 s                      | Compendium METs       | speed    | 5 km/mi   | ride records  | cycling/road   | Biking  | cycling       |
///
/// * Steady slow progress and the climb count as motion for every activity
///   on foot (`SlowProgress`): a runner power-hiking a steep climb is moving.
/// * Hike: a hiker stops to look, drink or read a sign; a pause of 5 s is
///   noise, not a rest. With an IMU the body must be still and stepless for
///   6 s (the ~1.5 s of a runner's rule is one stride), without one there must
///   be no evidence of motion for 15 s (the runner's 8 s, near doubled for the
///   slower, more hesitant pace). Pauses are back-dated to the last motion, so
///   the longer wait costs no moving time, only a later word. A hiker at a rest
///   shifts and turns, which an IMU counts as steps: with a trusted Doppler
///   speed the GPS vets them (`StepConfirmation`).
/// * Ride: bike computers pause on speed alone (Garmin Edge's auto pause
///   "when stopped" and its custom speeds start near 1–3 km/h; Wahoo and
///   Strava's ride auto-pause the same way): 1 m/s (3.6 km/h) is below any
///   rider who keeps their balance and above a standing receiver's Doppler
///   noise (0.1–0.2 m/s, `gps/sim`), and 3 s rides through a slow corner but
///   not a traffic light. The gates: 25 m/s (90 km/h) is above a fast road
///   descent; a bike brakes at 3–5 m/s² and pulls away at 1–1.5 m/s², so the
///   motion model's acceleration noise is 2.5 m/s^1.5 where a runner's is 1.
extension ActivityProfile {
    static func table(_ activity: Activity) -> ActivityProfile {
        switch activity {
        case .run:
            return onFoot(activity, calories: .acsm(.running),
                          sport: SportNames(fitSport: 1, fitSubSport: 0, tcx: "Running", gpx: "running", noun: "run"))
        case .trailRun:
            return onFoot(activity, calories: .acsm(.running),
                          sport: SportNames(fitSport: 1, fitSubSport: 3, tcx: "Running", gpx: "trail_running",
                                            noun: "trail run"))
        case .walk:
            return onFoot(activity, calories: .acsm(.walking),
                          sport: SportNames(fitSport: 11, fitSubSport: 0, tcx: "Other", gpx: "walking", noun: "walk"))
        case .hike:
            return ActivityProfile(activity: activity, countsSteps: true, maxSpeed: nil, accelerationNoise: nil,
                                   pause: .onFoot(stillDwell: 6, pauseDwell: 15, confirmSteps: true),
                                   calories: .pandolf,
                                   showsSpeed: false, splitUnits: 1, ladder: .solarSystem,
                                   sport: SportNames(fitSport: 17, fitSubSport: 0, tcx: "Other", gpx: "hiking",
                                                     noun: "hike"),
                                   tellsClimbRate: true)
        case .ride:
            return ActivityProfile(activity: activity, countsSteps: false, maxSpeed: 25, accelerationNoise: 2.5,
                                   pause: .wheels(below: 1.0, dwell: 3), calories: .cyclingMET,
                                   showsSpeed: true, splitUnits: 5, ladder: .rides,
                                   sport: SportNames(fitSport: 2, fitSubSport: 7, tcx: "Biking", gpx: "cycling",
                                                     noun: "ride"),
                                   tellsClimbRate: false)
        }
    }

    /// Run, trail run and walk: the configured on-foot rules as they were before issue 30.
    private static func onFoot(_ activity: Activity, calories: CalorieEquation, sport: SportNames) -> ActivityProfile {
        ActivityProfile(activity: activity, countsSteps: true, maxSpeed: nil, accelerationNoise: nil,
                        pause: .onFoot(stillDwell: 0, pauseDwell: 0, confirmSteps: false), calories: calories,
                        showsSpeed: false,
                        splitUnits: 1, ladder: .solarSystem, sport: sport, tellsClimbRate: false)
    }
}
