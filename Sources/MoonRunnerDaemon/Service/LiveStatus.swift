import MoonRunnerCore
import MoonRunnerProtocol

/// `STATUS` as the session service sees it at one moment: a pure value,
/// inputs in and a `StatusReply` out, so that what a watcher is told is
/// tested without a store, a socket or a clock. The sensor services report
/// their side (`inputs`); the engine adds what it took and refused, the
/// live statistics, the navigation and the heart rate.
struct LiveStatus {
    let engine: SessionEngine
    let inputs: InputHealth
    /// The session being recorded, if any.
    var session: Int64? = nil
    /// The last session started: shown while the engine rests stopped after it.
    var lastSession: Int64? = nil
    var lastTransition: TransitionInfo? = nil
    let store: StoreStatus
    /// Announcers are asked to keep silent.
    var quiet = false
    let units: UnitSystem
    let calories: CalorieModel
    var ladder = BadgeLadder.solarSystem
    /// `STATUS.battery`, nil without a gauge.
    var battery: BatteryStatusReply? = nil

    /// The reply at engine time `now` (it leaves in UTC, as every time the daemon sends).
    func reply(at now: Double) -> StatusReply {
        let offset = engine.utcOffsetNow
        let shown = engine.state == .idle ? nil : engine.stats.shifted(by: offset)
        let heartRate = engine.heartRateSummary
        let navigator = shown == nil ? nil : engine.navigator
        return StatusReply(time: now + (offset ?? 0), state: engine.state,
                           session: session ?? (engine.state == .stopped ? lastSession : nil), stats: shown,
                           gps: gps, imu: imu, baro: baro, altitudeSource: engine.altitudeSource,
                           store: store, lastTransition: lastTransition, units: units,
                           caloriesKcal: shown.map { liveCalories($0, heartRate: heartRate) } ?? 0,
                           nextBadge: nextBadge,
                           course: shown.flatMap { navigator?.courseStatus(averageSpeed: $0.averageSpeed) }
                               .map(CourseStatusReply.init),
                           home: navigator?.toHome.map(HomeReply.init),
                           destination: navigator?.destination.map {
                               DestinationReply(point: $0, heading: navigator?.toDestination,
                                                arrived: navigator?.arrived ?? false)
                           },
                           quiet: quiet,
                           hrBpm: engine.heartRate.current(at: engine.now), hrZone: engine.heartRate.zone(at: engine.now),
                           hrState: inputs.hrState, hr: hr,
                           caloriesMethod: shown.map { _ in heartRate?.calorieMethod ?? .acsm },
                           climbRate: shown.map { _ in engine.climbRate.metresPerHour },
                           workout: shown == nil ? nil : engine.workout.progress.map(WorkoutStatusReply.init),
                           battery: battery)
    }

    /// A short status for systemd's STATUS= (shown by `systemctl status`).
    var oneLine: String {
        let st = engine.stats
        let health = "gps \(inputs.gps.health.rawValue), imu \(inputs.imu.health.rawValue)"
        guard engine.state != .idle else { return "idle; \(health)" }
        return "\(engine.state.rawValue) \(Formatting.distance(st.distance, units)) "
            + "\(Formatting.duration(st.moving)) \(st.steps) steps; \(health)"
    }

    /// gpsd's side with the engine's signal grade.
    var gps: GPSStatus {
        var gps = inputs.gps
        gps.grade = engine.signal
        return gps
    }

    /// The IMU service's side; samples the engine refused count as rejected too.
    var imu: IMUStatus {
        var imu = inputs.imu
        imu.rejected += engine.rejectedSamples
        return imu
    }

    /// The barometer service's side with the fusion's counters.
    var baro: BaroStatus {
        var baro = inputs.baro
        (baro.samples, baro.rejected, baro.levelShifts) = (engine.baroCounters.samples, engine.baroCounters.rejected,
                                                           engine.baroCounters.levelShifts)
        return baro
    }

    /// The strap's side with the engine's counts of what it took and refused.
    var hr: HeartRateStatus {
        let c = engine.heartRate.counters
        var hr = inputs.hr
        (hr.samples, hr.missing, hr.rejected, hr.rrIntervals, hr.rrRejected) = (c.samples, c.missing, c.rejected,
                                                                               c.rrIntervals, c.rrRejected)
        return hr
    }

    /// The badge ahead of a live session.
    var nextBadge: NextBadge? {
        guard engine.state.isActive else { return nil }
        let progress = ladder.progress(distance: engine.stats.distance)
        return progress.next.map { NextBadge(badge: $0, left: progress.distanceLeft) }
    }

    /// The session's calories so far by the stored session's rule: from heart
    /// rate (Keytel 2005) once it covers 90 % of the moving time, else ACSM
    /// from the totals.
    func liveCalories(_ stats: SessionStats, heartRate: HeartRateSummary?) -> Double {
        if let heartRate, heartRate.calorieMethod == .heartRate { return heartRate.heartRateKcal }
        return calories.kcal(distance: stats.distance, moving: stats.moving, elevationGain: stats.elevationGain,
                             activity: stats.activity)
    }
}

extension StoreStatus {
    /// Commits that fail are held and retried; a journal the database cannot
    /// take in keeps every commit meanwhile: either is an error to look at.
    init(healthy: Bool, lastError: String?, pendingRows: Int, consolidationError: String?) {
        let consolidation = consolidationError.map { "the database cannot take the journal in: \($0)" }
        self.init(health: healthy && consolidation == nil ? .ok : .error, pending: pendingRows,
                  lastError: lastError ?? consolidation)
    }
}

extension SessionEngine {
    /// UTC minus engine time for what happens now: the live session's offset,
    /// else the receiver's (nil before any fix: the system clock is all there is).
    var utcOffsetNow: Double? {
        (state.isActive ? snapshot.utcOffset : nil) ?? receiverClock.offset
    }
}
