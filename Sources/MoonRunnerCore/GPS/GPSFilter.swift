import Glibc

/// What the filter made of one fix.
public struct GPSFilterOutput: Sendable, Equatable {
    /// The filtered position, nil when the fix gave none. A rejected fix can
    /// still come with a point: while moving with a Doppler speed the filter
    /// carries on by dead reckoning and reports where it thinks the wearer is.
    public var point: TrackPoint?
    public var rejection: FixRejection?
    /// Horizontal distance added by this fix, metres (never negative).
    public var distance: Double = 0
    /// The filter's own verdict on the wearer (from Doppler speed or, without
    /// it, from the positions): moving or standing still.
    public var moving: Bool = false
    /// With a Doppler speed the filter trusts: whether it shows the wearer
    /// making progress, however slowly, and since and until when (engine
    /// clock; `SlowProgress`). Nil without one: `moving` is all there is.
    public var progress: GPSProgress?

    public init(point: TrackPoint? = nil, rejection: FixRejection? = nil) {
        self.point = point
        self.rejection = rejection
    }
}

/// Turns raw gpsd fixes into a track and its distance (the climb is
/// `AltitudeFusion`'s), after the seed gates (`FixGate`).
/// Standing, the position is an anchor that averages the fixes and adds no
/// distance however they scatter. Moving (a Doppler speed above `moveSpeed` on
/// consecutive fixes, or fixes leaving the anchor together; until `stillDwell`
/// seconds of low speed or the IMU's stillness), a constant-velocity Kalman
/// filter per axis weighted by each fix's 1σ (GST, else `eph`), with a χ² gate.
/// Distance integrates the filtered speed, which Doppler dominates (summed
/// position differences would add every sideways jitter), each speed cleared
/// of the velocity's own noise (`VelocityNoise`). A gap counts only
/// when a walking pace explains where the fix came back, else a new segment
/// starts. O(1) state; `distance` is final when it is returned (no lag).
public struct GPSFilter: Sendable {
    public var config: GPSFilterConfig
    public private(set) var signal: SignalGrade = .none
    /// True while the filter believes the wearer moves.
    public var isMoving: Bool { track.moving }

    /// The seed gates and the receiver's clock: all that outlives a restart.
    private var gate = FixGate()
    /// The plane the axes live in; nil until the first fix of a track.
    private var plane: LocalTangentPlane?
    /// The filtered axes, the motion state and the outliers since the filter
    /// last started on a fix.
    private var track = Track()
    /// The distance counted so far into the track, and the segment breaks.
    private var odometer = Odometer()
    private var dopplerCheck = DopplerCheck()
    private var slowProgress = SlowProgress()
    /// The filtered velocity's scatter from fix to fix, cleared from each speed counted.
    private var velocityNoise = VelocityNoise()
    /// What the last fix's Doppler speed said of progress (nil without a trusted one).
    private var lastProgress: GPSProgress?

    /// One fix, prepared: where, how sure, how fast.
    struct Measurement {
        var t: Double
        var now: Double
        var east: Double
        var north: Double
        /// Variances of the position per axis, m².
        var rEast: Double
        var rNorth: Double
        /// Doppler velocity (NaN when there is none) and its variance.
        var vEast: Double
        var vNorth: Double
        var rVelocity: Double
        var hasDoppler: Bool
        /// Doppler says moving / stopped.
        var fast: Bool
        var slow: Bool
        /// The median of the recent Doppler speeds shows slow, steady progress.
        var creeping: Bool
        var stationaryHint: Bool
        var fix: GPSFix
        var hasVelocity: Bool { vEast.isFinite && vNorth.isFinite }
        var sigmaSum: Double { (rEast + rNorth).squareRoot() }
    }

    public init(config: GPSFilterConfig = GPSFilterConfig()) {
        self.config = config
    }

    /// A filter that starts its track afresh and keeps the gates (and what
    /// the last fix said of the signal).
    private init(config: GPSFilterConfig, keeping gate: FixGate, signal: SignalGrade) {
        self.config = config
        self.gate = gate
        self.signal = signal
    }

    /// Forgets the track (after a loss of fix or a restart): the next fix is a
    /// first fix again and starts a new segment.
    public mutating func reset() {
        gate.expectFirstFix()
        restartTrack()
    }

    /// Forgets the track but not the gates.
    private mutating func restartTrack() {
        self = GPSFilter(config: config, keeping: gate, signal: signal)
    }

    /// The next accepted point starts a new segment, without forgetting the
    /// gating state (used when the session resumes after a pause).
    public mutating func breakSegment() {
        odometer.breakSegment()
        track.pendingDistance = 0
    }

    /// Gates the fix, places it in the plane, then starts the track on it,
    /// bridges the gap before it or steps the filter to it.
    public mutating func process(_ fix: GPSFix, at now: Double, stationary: Bool = false) -> GPSFilterOutput {
        odometer.pointStartsSegment = false
        let error = horizontalError(of: fix)
        signal = fix.hasPosition ? SignalGrade(eph: error.r95) : .none
        let verdict = gate.check(fix, at: now, r95: error.r95, maxAge: config.maxAge, maxAccuracy: config.maxAccuracy,
                                 dropFirstFix: config.dropFirstFix)
        if verdict.clockJumped { restartTrack() }
        let t: Double
        switch verdict.time {
        case let .success(time): t = time
        case let .failure(rejection): return reply(GPSFilterOutput(rejection: rejection))
        }
        recentreIfFar()
        let m = measure(fix, at: t, now: now, error: error, stationary: stationary)
        var out = GPSFilterOutput()
        out.progress = lastProgress
        if !track.tracking {
            start(m, moving: false, into: &out)
        } else if t - track.lastTime > config.segmentGap {
            bridgeGap(m, dt: t - track.lastTime, into: &out)
        } else {
            step(m, into: &out)
        }
        return reply(out)
    }

    // MARK: Steps

    /// A fix within reach of the motion model: predict, weigh the fix
    /// against the prediction, then apply the moving or the standing rules.
    private mutating func step(_ m: Measurement, into out: inout GPSFilterOutput) {
        let prior = StepStart(east: track.east.p, north: track.north.p, velocity: (track.east.v, track.north.v),
                              dt: m.t - track.lastTime)
        track.predict(dt: prior.dt, accelerationNoise: config.accelerationNoise, stillDrift: config.stillDrift)
        let (ye, se) = track.east.positionInnovation(m.east, variance: m.rEast)
        let (yn, sn) = track.north.positionInnovation(m.north, variance: m.rNorth)
        let chi2 = ye * ye / se + yn * yn / sn
        // The seed's implied-speed rule, with the fix's own error allowed for.
        let jump = hypot(m.east - prior.east, m.north - prior.north)
        let excessSpeed = max(0, jump - 3 * m.sigmaSum) / max(prior.dt, 1e-3)
        track.countFast(m, dt: prior.dt)
        if track.moving {
            movingStep(m, chi2: chi2, excessSpeed: excessSpeed, from: prior, into: &out)
        } else {
            standingStep(m, chi2: chi2, excessSpeed: excessSpeed, from: prior, into: &out)
        }
    }

    /// A fix while moving: the Kalman update and the step's distance, then
    /// whether the wearer has stopped; an outlier goes to `refuseWhileMoving`.
    private mutating func movingStep(_ m: Measurement, chi2: Double, excessSpeed: Double, from prior: StepStart,
                                     into out: inout GPSFilterOutput) {
        if chi2 > config.outlierGate || excessSpeed > config.maxSpeed {
            refuseWhileMoving(m, excessSpeed: excessSpeed, from: prior, into: &out)
            return
        }
        track.rejectedSince = .nan
        track.candidate = nil
        track.east.updatePosition(m.east, variance: m.rEast)
        track.north.updatePosition(m.north, variance: m.rNorth)
        if m.hasVelocity {
            track.east.updateVelocity(m.vEast, variance: m.rVelocity)
            track.north.updateVelocity(m.vNorth, variance: m.rVelocity)
            velocityNoise.observe(east: track.east.v, north: track.north.v, at: m.t)
        }
        out.distance += odometer.count(from: prior, to: track.east, track.north, usingVelocity: m.hasVelocity,
                                       noise: velocityNoise)
        track.settle(m, speedWindow: config.speedWindow, stillSpeed: config.stillSpeed, stillDwell: config.stillDwell)
        track.lastTime = m.t
        out.point = point(for: m)
    }

    /// An outlier while moving. Rejected fixes that agree with each other for
    /// long enough are the truth and the filter is lost: start again from
    /// them. Until then a Doppler velocity carries the track on.
    private mutating func refuseWhileMoving(_ m: Measurement, excessSpeed: Double, from prior: StepStart,
                                            into out: inout GPSFilterOutput) {
        if track.reacquires(m, maxSpeed: config.maxSpeed, reacquireAfter: config.reacquireAfter) {
            start(m, moving: true, into: &out)
            return
        }
        out.rejection = excessSpeed > config.maxSpeed ? .tooFast : .outlier
        if m.hasVelocity {
            // Dead reckoning on the Doppler velocity keeps the distance honest.
            track.east.updateVelocity(m.vEast, variance: m.rVelocity)
            track.north.updateVelocity(m.vNorth, variance: m.rVelocity)
            velocityNoise.observe(east: track.east.v, north: track.north.v, at: m.t)
            out.distance += odometer.count(from: prior, to: track.east, track.north, usingVelocity: true,
                                           noise: velocityNoise)
            out.point = point(for: m)
        }
        track.lastTime = m.t
    }

    /// A fix while standing: averaged into the anchor; or, when it leaves the
    /// anchor, the start of moving (Doppler, or two fixes agreeing on a new
    /// place), the anchor moved (drift), or an outlier.
    private mutating func standingStep(_ m: Measurement, chi2: Double, excessSpeed: Double, from prior: StepStart,
                                       into out: inout GPSFilterOutput) {
        let anchor = (east: track.east.p, north: track.north.p)
        if chi2 <= config.departureGate {
            track.departure = nil
            if track.fastCount >= config.moveConfirmFixes {
                startMoving(m, from: anchor, after: prior, into: &out)
                return
            }
            track.east.updatePosition(m.east, variance: m.rEast)
            track.north.updatePosition(m.north, variance: m.rNorth)
            track.east.freeze()
            track.north.freeze()
            track.lastTime = m.t
            odometer.consumeSegmentStart()
            out.point = point(for: m)
            return
        }
        // The fix left the anchor: an outlier, drift, or the wearer walking off.
        let distance = hypot(m.east - anchor.east, m.north - anchor.north)
        if let d = track.departure {
            let pair = max(0, hypot(m.east - d.east, m.north - d.north) - 3 * m.sigmaSum) / max(m.t - d.t, 1e-3)
            if pair <= config.maxSpeed && distance >= track.departureDistance - m.sigmaSum {
                // Two fixes agree on a new place.
                let onFoot = excessSpeed <= config.maxSpeed
                if onFoot && !m.stationaryHint && !m.slow {
                    startMoving(m, from: anchor, after: prior, into: &out)
                } else {
                    // Drift, or the receiver settling: move the anchor, count nothing.
                    start(m, moving: false, into: &out)
                }
                return
            }
        }
        if track.fastCount >= config.moveConfirmFixes && excessSpeed <= config.maxSpeed {
            startMoving(m, from: anchor, after: prior, into: &out)
            return
        }
        track.departure = Stamped(t: m.t, east: m.east, north: m.north)
        track.departureDistance = distance
        track.lastTime = m.t
        out.rejection = excessSpeed > config.maxSpeed ? .tooFast : .outlier
    }

    private mutating func startMoving(_ m: Measurement, from anchor: (east: Double, north: Double),
                                      after prior: StepStart, into out: inout GPSFilterOutput) {
        track.setOff(m, from: anchor)
        odometer.debt += track.pendingDistance
        track.pendingDistance = 0
        track.east.updatePosition(m.east, variance: m.rEast)
        track.north.updatePosition(m.north, variance: m.rNorth)
        if m.hasVelocity {
            track.east.updateVelocity(m.vEast, variance: m.rVelocity)
            track.north.updateVelocity(m.vNorth, variance: m.rVelocity)
        }
        // From the anchor, as if from a standstill.
        let standstill = StepStart(east: anchor.east, north: anchor.north, velocity: (0, 0), dt: prior.dt)
        out.distance += odometer.count(from: standstill, to: track.east, track.north, usingVelocity: false,
                                       noise: velocityNoise)
        track.lastTime = m.t
        track.window = Stamped(t: m.t, east: anchor.east, north: anchor.north)
        track.windowSpeed = 1
        out.point = point(for: m)
    }

    /// A gap longer than the motion model can bridge.
    private mutating func bridgeGap(_ m: Measurement, dt: Double, into out: inout GPSFilterOutput) {
        let (east, north) = (track.east, track.north)
        let chord = hypot(m.east - east.p, m.north - north.p)
        let pace = max(config.gapPaceFactor * odometer.recentSpeed, config.gapWalkSpeed)
        let sigma = (m.rEast + m.rNorth + east.pp + north.pp).squareRoot()
        let plausible = dt <= config.maxBridgedGap && chord <= pace * dt + 2 * sigma
        let moved = chord > 2 * sigma
        if plausible && !odometer.newSegment {
            // Moving before and after a gap of a minute or two: the wearer most
            // likely kept going, along a path at least as long as the chord.
            let before = track.moving ? hypot(east.v, north.v) : 0
            let after = m.fast ? m.fix.speed : 0
            let kept = dt <= config.keptPaceGap ? min(before, after) * dt : 0
            out.distance += max(moved ? chord : 0, kept)
        }
        // No line through walls: a far exit starts a new segment.
        let startsSegment = odometer.newSegment || !plausible
        let nowMoving = m.fast || (moved && plausible && !m.stationaryHint && !m.slow)
        start(m, moving: nowMoving, into: &out)
        if startsSegment, var p = out.point {
            p.newSegment = true
            out.point = p
        }
    }

    /// (Re)starts the filter on this fix.
    private mutating func start(_ m: Measurement, moving isMoving: Bool, into out: inout GPSFilterOutput) {
        track = Track(m, moving: isMoving)
        odometer.consumeSegmentStart()
        out.point = point(for: m)
    }

    // MARK: Helpers

    // The two helpers below read `self` and run on every fix: inlined, they
    // read the filter in place instead of copying all of it for the call.
    @inline(__always)
    private func point(for m: Measurement) -> TrackPoint {
        let (east, north) = (track.east, track.north)
        let speed = track.moving ? hypot(east.v, north.v) : 0
        var course = Double.nan
        if track.moving {
            if speed > 0.3 {
                let deg = atan2(east.v, north.v) * 180 / .pi
                course = deg < 0 ? deg + 360 : deg
            } else if m.fix.track.isFinite {
                course = m.fix.track
            }
        }
        let (lat, lon) = plane?.unproject(east: east.p, north: north.p) ?? (m.fix.latitude, m.fix.longitude)
        return TrackPoint(time: m.now, fixTime: m.t, latitude: lat, longitude: lon,
                          altitude: m.fix.altitude, speed: speed, course: course,
                          eph: m.fix.eph, newSegment: odometer.pointStartsSegment)
    }

    private func reply(_ out: GPSFilterOutput) -> GPSFilterOutput {
        var o = out
        o.moving = track.moving
        return o
    }

    /// 1σ per axis (east, north) the filter weighs a fix by, and its 95 % radius
    /// (`GPSErrorModel`). A receiver's GST is widened by `gstErrorInflation`
    /// here only: it leaves out the slowly varying errors that a filter
    /// averaging fix after fix must not trust away.
    @inline(__always)
    private func horizontalError(of fix: GPSFix) -> (east: Double, north: Double, r95: Double) {
        guard let error = config.errorModel.horizontal(of: fix) else {
            return (config.defaultSigma, config.defaultSigma, .nan)
        }
        let widen = error.fromReceiver ? config.gstErrorInflation : 1
        return (max(error.east * widen, config.minimumSigma), max(error.north * widen, config.minimumSigma),
                error.radius95)
    }

    private mutating func measure(_ fix: GPSFix, at t: Double, now: Double,
                                  error: (east: Double, north: Double, r95: Double),
                                  stationary: Bool) -> Measurement {
        let plane = self.plane ?? LocalTangentPlane(originLat: fix.latitude, originLon: fix.longitude)
        self.plane = plane
        let (e, n) = plane.project(lat: fix.latitude, lon: fix.longitude)
        let hasDoppler = dopplerCheck.observe(speed: fix.speed, east: e, north: n, at: t)
        var ve = Double.nan, vn = Double.nan, rv = Double.nan
        observeProgress(fix, hasDoppler: hasDoppler, at: t, now: now)
        let creeping = hasDoppler && slowProgress.creeping
        if hasDoppler {
            if fix.track.isFinite {
                let c = fix.track * .pi / 180
                ve = fix.speed * sin(c)
                vn = fix.speed * cos(c)
            } else if fix.speed < config.stillSpeed {
                ve = 0
                vn = 0
            }
            let cross = fix.speed * config.courseSigma * .pi / 180
            rv = config.dopplerSpeedSigma * config.dopplerSpeedSigma + cross * cross
        }
        // Steady slow progress lowers the bar to set off to the creeping speed, and a
        // wearer who creeps slower than `stillSpeed` stops only below it too (a hiker
        // at 0.4 m/s dips below 0.5 m/s often, a standing receiver stays below 0.3 m/s);
        // anyone faster stops as before.
        let setOff = creeping ? min(config.moveSpeed, config.creepSpeed) : config.moveSpeed
        let crawl = creeping && slowProgress.median < config.stillSpeed
        let stop = crawl ? min(config.stillSpeed, config.creepSpeed) : config.stillSpeed
        let fast = hasDoppler && fix.speed >= setOff && !stationary
        let slow = hasDoppler && fix.speed < stop
        return Measurement(t: t, now: now, east: e, north: n, rEast: error.east * error.east,
                           rNorth: error.north * error.north, vEast: ve, vNorth: vn, rVelocity: rv,
                           hasDoppler: hasDoppler, fast: fast, slow: slow, creeping: creeping,
                           stationaryHint: stationary, fix: fix)
    }

    /// Feeds a trusted Doppler speed to `SlowProgress` and keeps what it says
    /// on the engine's clock (the fix's delay is the same for the last ones).
    private mutating func observeProgress(_ fix: GPSFix, hasDoppler: Bool, at t: Double, now: Double) {
        guard hasDoppler else {
            slowProgress.reset()
            lastProgress = nil
            return
        }
        slowProgress.observe(speed: fix.speed, at: t, creepSpeed: config.creepSpeed)
        let delay = now - t
        lastProgress = GPSProgress(creeping: slowProgress.creeping, since: slowProgress.since + delay,
                                   lastMotion: slowProgress.lastMotion + delay, atSpeed: fix.speed >= config.creepSpeed)
    }

    /// Keeps the plane's origin within a few kilometres of the wearer, where
    /// the flat-earth projection stays exact to centimetres.
    private mutating func recentreIfFar() {
        guard track.tracking, let plane, hypot(track.east.p, track.north.p) > 5_000 else { return }
        let (lat, lon) = plane.unproject(east: track.east.p, north: track.north.p)
        let de = track.east.p, dn = track.north.p
        self.plane = LocalTangentPlane(originLat: lat, originLon: lon)
        track.shiftOrigin(east: de, north: dn)
        dopplerCheck.shift(east: de, north: dn)
    }
}
