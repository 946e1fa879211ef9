/// The five activities' rules (the table in docs/usage.md, "Activities").
///
/// * On foot, steady slow progress and the climb count as motion
///   (`SlowProgress`): a runner power-hiking a steep climb is moving. A
///   resting wearer's shifting reads as steps (a hiker at a view, a runner
///   bent over after a repeat): GPS vets them (`StepConfirmation`).
/// * Hike: a hiker stops to look or drink. With an IMU a pause needs 6 s still
///   and stepless (a runner's ~1.5 s is one stride), without one 15 s with no
///   evidence of motion (the runner's 8 s, near doubled for a slower, more
///   hesitant pace); back-dated, the wait costs no moving time.
/// * Ride: paused below 1 m/s (3.6 km/h) for 3 s, as bike computers do: below
///   any rider who keeps their balance, above a standing receiver's Doppler noise
///   (0.1–0.2 m/s); gates 25 m/s (a fast descent), 2.5 m/s^1.5 (brakes at 3–5 m/s²).
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

    /// Run, trail run and walk: the configured on-foot rules of the original run and walk.
    private static func onFoot(_ activity: Activity, calories: CalorieEquation, sport: SportNames) -> ActivityProfile {
        ActivityProfile(activity: activity, countsSteps: true, maxSpeed: nil, accelerationNoise: nil,
                        pause: .onFoot(stillDwell: 0, pauseDwell: 0, confirmSteps: true), calories: calories,
                        showsSpeed: false,
                        splitUnits: 1, ladder: .solarSystem, sport: sport, tellsClimbRate: false)
    }
}
