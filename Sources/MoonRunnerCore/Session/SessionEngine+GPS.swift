/// The engine's GPS input: a fix through the filter, the distance and the
/// climb, the written track, and the course navigator.
extension SessionEngine {
    /// One gpsd fix that arrived at engine-clock instant `t`.
    public mutating func ingest(_ fix: GPSFix, at t: Double, emit: (EngineOutput) -> Void) {
        advanceClock(t)
        if fix.hasPosition {
            receiverClock.observe(receiverTime: fix.time, arrival: t)
            if state.isActive { sessionOffset = receiverClock.offset }
        }
        let still = hasIMU && t - lastStep > config.stillAfter && energy.accelStd < config.stillAccelStd
            && !(fix.speed.isFinite && fix.speed > config.autoPause.moveSpeed)
        if fix.hasPosition { lastFixTime = t }
        let out = gps.process(fix, at: t, stationary: still)
        // The filter's verdict is the GPS evidence of motion (the detector
        // weighs it against the IMU); taken before the distance so that the
        // fix that resumes a pause also counts its step.
        if state == .recording || state == .autoPaused, fix.hasPosition {
            handle(autoPause.gps(moving: out.moving, speed: fix.speed, progress: out.progress, at: t), emit: emit)
        }
        if let reason = out.rejection {
            if state.isActive { stats.rejectedFixes += 1 }
            emit(.rejected(reason, fix, at: t))
        }
        // Accepted fixes carry the altitude; dead-reckoned points get the current one.
        var climb: AltitudeUpdate?
        if let point = out.point, out.rejection == nil {
            climb = climbOf(fix, under: point, moving: out.moving, moved: out.distance, at: t, emit: emit)
        }
        if var point = out.point {
            let fused = climb?.altitude ?? altitude.latest
            if fused.isFinite { point.altitude = fused }
            point.heartRate = heartRate.current(at: now) ?? .nan
            let recording = state == .recording
            if recording {
                stats.distance += out.distance
                stats.elevationGain += climb?.gain ?? 0
                stats.elevationLoss += climb?.loss ?? 0
                climbRate.add(gain: stats.elevationGain, moving: stats.moving)
                stats.speed = point.speed
                stats.maxSpeed = max(stats.maxSpeed, point.speed)
                stats.noteAltitude(from: climb?.source ?? altitude.source)
            }
            // The written track is shaped so that its length is the distance counted.
            let (opened, placed) = shaper.place(point, added: recording ? out.distance : 0, total: stats.distance,
                                                recording: recording)
            if let opened {
                stats.points += 1
                emit(.point(opened))
            }
            if let placed {
                stats.points += 1
                emit(.point(placed))
            }
            if recording, placed == nil, out.rejection == nil {
                emit(.rejected(.held, fix, at: t))
            }
        }
        if let point = out.point, state == .recording || state == .autoPaused {
            navigate(point, fix: fix, at: t, emit: emit)
        }
        checkAutoPause(emit: emit)
    }

    /// The altitude of an accepted fix, what it adds to the climb, and the
    /// climb as evidence of motion (`ClimbEvidence`) while a session is open.
    private mutating func climbOf(_ fix: GPSFix, under point: TrackPoint, moving: Bool, moved: Double, at t: Double,
                                  emit: (EngineOutput) -> Void) -> AltitudeUpdate {
        let sigma = config.gps.errorModel.verticalSigma(of: fix)
        let ground = ground(under: point, at: t, emit: emit)
        let climb = altitude.gps(altitude: fix.altitude, sigma: sigma, at: t, moving: moving,
                                 terrain: ground.metres, terrainSpacing: ground.arcSeconds, moved: moved)
        if state == .recording || state == .autoPaused,
           let since = climbEvidence.add(altitude: climb.shape, sigma: sigma, source: climb.source,
                                         at: t, judged: autoPause.takesClimb(at: t)) {
            handle(autoPause.climbing(since: since, at: t), emit: emit)
        }
        return climb
    }

    /// Feeds an accepted position to the navigator and passes its events on.
    /// The direction of travel is the receiver's Doppler course when it has
    /// one (the filter's own heading swings while it converges on the first
    /// fixes), else the filter's.
    private mutating func navigate(_ point: TrackPoint, fix: GPSFix, at t: Double, emit: (EngineOutput) -> Void) {
        let state = self.state
        let doppler = fix.speed.isFinite && fix.track.isFinite
        let sigma = config.gps.errorModel.horizontal(of: fix)?.sigma ?? .nan, distance = stats.distance
        // Mutated in place (optional chaining), so its buffers are not copied.
        navigator?.update(latitude: point.latitude, longitude: point.longitude, sigma: sigma,
                          speed: doppler ? fix.speed : point.speed, heading: doppler ? fix.track : point.course,
                          distance: distance, at: t) { n in
            let cause = n.kind == .arrived ? "destination" : "course"
            emit(.event(SessionEvent(kind: n.kind, time: n.time, detectedAt: t, cause: cause, state: state,
                                     detail: n.detail, cue: n.cue)))
        }
    }

    /// The terrain model's elevation under an accepted position (NaN where it
    /// has none, or there is no model); while recording, a change of coverage
    /// is a `terrain_lost` / `terrain_regained` event.
    private mutating func ground(under point: TrackPoint, at t: Double, emit: (EngineOutput) -> Void) -> TerrainReading {
        guard let terrain, terrain.hasTiles else { return .void(TileCell(south: 0, west: 0)) }
        let reading = terrain.elevation(latitude: point.latitude, longitude: point.longitude)
        if state == .recording, let (kind, detail) = terrainWatch.update(reading) {
            emit(.event(SessionEvent(kind: kind, time: t, detectedAt: t, cause: "terrain", state: state, detail: detail)))
        }
        return reading
    }
}
