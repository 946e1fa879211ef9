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

    public init(point: TrackPoint? = nil, rejection: FixRejection? = nil) {
        self.point = point
        self.rejection = rejection
    }
}

/// Turns raw gpsd fixes into a track and its distance (the climb is the
/// altitude fusion's, `AltitudeFusion`).
///
/// * Seed gates first: no fix, 0,0, duplicates, out of order, stale, the
///   first fix after a start or a loss of fix, poor accuracy.
/// * Two states. **Standing**: the position is an anchor that averages the
///   fixes and adds no distance, however much they scatter or drift.
///   **Moving**: a constant-velocity Kalman filter per axis, weighted by each
///   fix's 1σ (GST when present, else `eph`), fed the receiver's Doppler
///   velocity, with a χ² gate against outliers and re-acquisition when the
///   rejected fixes agree among themselves for a while.
/// * Moving starts on a Doppler speed above `moveSpeed` on consecutive fixes,
///   or on fixes that leave the anchor together (receivers without Doppler,
///   slow walking); it ends after `stillDwell` seconds of low speed. The
///   IMU's stillness hint ends it at once and keeps it from starting.
/// * Distance while moving is the integral of the filtered speed, which the
///   Doppler measurement dominates: summing noisy position differences would
///   add every sideways jitter to the path. Without Doppler it is the filtered
///   displacement projected on the direction of travel, for the same reason.
/// * Gaps: short ones are bridged by the motion model. Longer ones count only
///   when a walking pace explains where the fix came back (else a new segment
///   starts and nothing counts): the straight line, or the pace kept before and
///   after the gap when that is longer (a bend or a loop in a tunnel).
///
/// Pure value type with O(1) state: the caller passes each fix with the
/// engine-clock instant it arrived at and whether the IMU knows the wearer
/// stands still. There is no lag: `distance` is final when it is returned.
public struct GPSFilter: Sendable {
    public var config: GPSFilterConfig
    public private(set) var signal: SignalGrade = .none
    /// True while the filter believes the wearer moves.
    public var isMoving: Bool { moving }

    // Gates.
    private var lastFixTime = -Double.infinity
    private var minLatency = Double.infinity
    private var firstDropped = false
    /// Refused fixes in a row that agree on a different receiver-clock offset.
    private var jumpRun = 0
    private var jumpLatency = Double.nan

    // The plane and the two filtered axes (valid when `tracking`).
    private var plane: LocalTangentPlane?
    private var tracking = false
    private var east = KalmanAxis(position: 0, velocity: 0, positionVariance: 0, velocityVariance: 0)
    private var north = KalmanAxis(position: 0, velocity: 0, positionVariance: 0, velocityVariance: 0)
    /// Receiver time of the last fix the filter stepped to.
    private var lastTime = Double.nan
    /// Length of the current step and the velocity before it (for the distance).
    private var stepLength = 0.0
    private var previousVelocity = (east: 0.0, north: 0.0)

    // Motion state.
    private var moving = false
    private var fastCount = 0
    private var slowSince = Double.nan
    /// Doppler distance covered while confirming a start; paid out when it is confirmed.
    private var pendingDistance = 0.0
    /// Negative along-track corrections not yet paid back (distance never goes down).
    private var debt = 0.0
    /// Smoothed speed of recent steps, m/s (judges long gaps).
    private var recentSpeed = 0.0
    /// Averaged speed for receivers without Doppler: position at the window start.
    private var window = Stamped(t: .nan, east: 0, north: 0)
    private var windowSpeed = 1.0

    // Outliers.
    private var rejectedSince = Double.nan
    private var rejectedCount = 0
    private var candidate: Stamped?
    /// While standing: the last fix that left the anchor, and how far.
    private var departure: Stamped?
    private var departureDistance = 0.0

    // Segments.
    private var newSegment = true
    private var pointStartsSegment = false

    private var dopplerCheck = DopplerCheck()

    /// A position in the plane at a receiver time.
    private struct Stamped: Sendable {
        var t: Double
        var east: Double
        var north: Double
    }

    /// One fix, prepared: where, how sure, how fast.
    private struct Measurement {
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
        var stationaryHint: Bool
        var fix: GPSFix
        var hasVelocity: Bool { vEast.isFinite && vNorth.isFinite }
        var sigmaSum: Double { (rEast + rNorth).squareRoot() }
    }

    public init(config: GPSFilterConfig = GPSFilterConfig()) {
        self.config = config
    }

    /// Forgets the track (after a loss of fix or a restart): the next fix is a
    /// first fix again and starts a new segment.
    public mutating func reset() {
        firstDropped = false
        restartTrack()
    }

    /// Forgets the track but not the gates.
    private mutating func restartTrack() {
        plane = nil
        tracking = false
        moving = false
        fastCount = 0
        slowSince = .nan
        pendingDistance = 0
        debt = 0
        recentSpeed = 0
        rejectedSince = .nan
        rejectedCount = 0
        candidate = nil
        departure = nil
        newSegment = true
        dopplerCheck.reset()
    }

    /// The next accepted point starts a new segment, without forgetting the
    /// gating state (used when the session resumes after a pause).
    public mutating func breakSegment() {
        newSegment = true
        debt = 0
        pendingDistance = 0
    }

    public mutating func process(_ fix: GPSFix, at now: Double, stationary: Bool = false) -> GPSFilterOutput {
        pointStartsSegment = false
        guard fix.hasPosition else {
            signal = .none
            if fix.mode >= 0 && fix.mode < 2 { firstDropped = false }
            return reply(GPSFilterOutput(rejection: .noFix))
        }
        let error = horizontalError(of: fix)
        signal = SignalGrade(eph: error.r95)
        if abs(fix.latitude) < 1e-6 && abs(fix.longitude) < 1e-6 {
            return reply(GPSFilterOutput(rejection: .nullIsland))
        }
        // Everything runs on the receiver's clock. A fix without time (gpsd's
        // first fix) is placed on it through the engine clock's known offset.
        let t: Double
        if fix.time.isFinite {
            t = fix.time
        } else if minLatency.isFinite {
            t = now - minLatency
        } else {
            return reply(GPSFilterOutput(rejection: .noTime))
        }
        // Receiver and engine clocks differ by an unknown offset; what matters
        // is how much later than usual this fix arrived.
        let latency = now - t
        if t == lastFixTime { return reply(GPSFilterOutput(rejection: .duplicate)) }
        if t < lastFixTime || latency - minLatency > config.maxAge {
            if clockJumped(latency: latency) {
                // The receiver's clock moved for good (a restart, a week-number
                // fix-up): take the new clock and start the track afresh.
                minLatency = latency
                lastFixTime = -.infinity
                restartTrack()
            } else if t < lastFixTime {
                return reply(GPSFilterOutput(rejection: .outOfOrder))
            } else {
                return reply(GPSFilterOutput(rejection: .stale))
            }
        } else {
            jumpRun = 0
        }
        if latency.isFinite { minLatency = min(minLatency, latency) }
        lastFixTime = t
        if config.dropFirstFix && !firstDropped {
            firstDropped = true
            return reply(GPSFilterOutput(rejection: .firstFix))
        }
        if error.r95.isFinite && error.r95 > config.maxAccuracy {
            return reply(GPSFilterOutput(rejection: .poorAccuracy))
        }

        recentreIfFar()
        let m = measure(fix, at: t, now: now, error: error, stationary: stationary)
        var out = GPSFilterOutput()
        guard tracking else {
            start(m, moving: false, into: &out)
            return reply(out)
        }
        let dt = t - lastTime
        stepLength = dt
        if dt > config.segmentGap {
            bridgeGap(m, dt: dt, into: &out)
            return reply(out)
        }

        let before = (east: east.p, north: north.p)
        previousVelocity = (east.v, north.v)
        if moving {
            let q = config.accelerationNoise * config.accelerationNoise
            east.predict(dt: dt, q: q)
            north.predict(dt: dt, q: q)
        } else {
            east.freeze()
            north.freeze()
            let drift = config.stillDrift * config.stillDrift * dt
            east.pp += drift
            north.pp += drift
        }
        let (ye, se) = east.positionInnovation(m.east, variance: m.rEast)
        let (yn, sn) = north.positionInnovation(m.north, variance: m.rNorth)
        let chi2 = ye * ye / se + yn * yn / sn
        // The seed's implied-speed rule, with the fix's own error allowed for.
        let jump = hypot(m.east - before.east, m.north - before.north)
        let excessSpeed = max(0, jump - 3 * m.sigmaSum) / max(dt, 1e-3)
        if m.fast {
            fastCount += 1
            if !moving && fastCount > 1 { pendingDistance += m.fix.speed * dt }
        } else {
            fastCount = 0
            pendingDistance = 0
        }
        if moving {
            movingStep(m, chi2: chi2, excessSpeed: excessSpeed, before: before, into: &out)
        } else {
            standingStep(m, chi2: chi2, excessSpeed: excessSpeed, into: &out)
        }
        return reply(out)
    }

    // MARK: Steps

    private mutating func movingStep(_ m: Measurement, chi2: Double, excessSpeed: Double,
                                     before: (east: Double, north: Double), into out: inout GPSFilterOutput) {
        if chi2 > config.outlierGate || excessSpeed > config.maxSpeed {
            if rejectedSince.isNaN {
                rejectedSince = m.t
                rejectedCount = 0
            }
            rejectedCount += 1
            // Rejected fixes that agree with each other for long enough are
            // the truth and the filter is lost: start again from them.
            var consistent = false
            if let c = candidate, m.t > c.t {
                let gap = max(0, hypot(m.east - c.east, m.north - c.north) - 3 * m.sigmaSum)
                consistent = gap / (m.t - c.t) <= config.maxSpeed
            }
            candidate = Stamped(t: m.t, east: m.east, north: m.north)
            if !consistent {
                rejectedSince = m.t
                rejectedCount = 1
            }
            if m.t - rejectedSince >= config.reacquireAfter && rejectedCount >= 3 {
                start(m, moving: true, into: &out)
                return
            }
            out.rejection = excessSpeed > config.maxSpeed ? .tooFast : .outlier
            if m.hasVelocity {
                // Dead reckoning on the Doppler velocity keeps the distance honest.
                east.updateVelocity(m.vEast, variance: m.rVelocity)
                north.updateVelocity(m.vNorth, variance: m.rVelocity)
                out.distance += countStep(from: before, usingVelocity: true)
                out.point = point(for: m)
            }
            lastTime = m.t
            return
        }
        rejectedSince = .nan
        candidate = nil
        east.updatePosition(m.east, variance: m.rEast)
        north.updatePosition(m.north, variance: m.rNorth)
        if m.hasVelocity {
            east.updateVelocity(m.vEast, variance: m.rVelocity)
            north.updateVelocity(m.vNorth, variance: m.rVelocity)
        }
        out.distance += countStep(from: before, usingVelocity: m.hasVelocity)

        if m.t - window.t >= config.speedWindow {
            windowSpeed = hypot(east.p - window.east, north.p - window.north) / (m.t - window.t)
            window = Stamped(t: m.t, east: east.p, north: north.p)
        }
        let slow = m.hasDoppler ? m.slow : windowSpeed < config.stillSpeed
        if m.stationaryHint || slow {
            if slowSince.isNaN { slowSince = m.t }
            if m.stationaryHint || m.t - slowSince >= config.stillDwell {
                moving = false
                east.freeze()
                north.freeze()
            }
        } else {
            slowSince = .nan
        }
        lastTime = m.t
        out.point = point(for: m)
    }

    private mutating func standingStep(_ m: Measurement, chi2: Double, excessSpeed: Double,
                                       into out: inout GPSFilterOutput) {
        let anchor = (east: east.p, north: north.p)
        if chi2 <= config.departureGate {
            departure = nil
            if fastCount >= config.moveConfirmFixes {
                startMoving(m, from: anchor, into: &out)
                return
            }
            east.updatePosition(m.east, variance: m.rEast)
            north.updatePosition(m.north, variance: m.rNorth)
            east.freeze()
            north.freeze()
            lastTime = m.t
            consumeSegmentStart()
                out.point = point(for: m)
            return
        }
        // The fix left the anchor: an outlier, drift, or the wearer walking off.
        let distance = hypot(m.east - anchor.east, m.north - anchor.north)
        if let d = departure {
            let pair = max(0, hypot(m.east - d.east, m.north - d.north) - 3 * m.sigmaSum) / max(m.t - d.t, 1e-3)
            if pair <= config.maxSpeed && distance >= departureDistance - m.sigmaSum {
                // Two fixes agree on a new place.
                let onFoot = excessSpeed <= config.maxSpeed
                if onFoot && !m.stationaryHint && !m.slow {
                    startMoving(m, from: anchor, into: &out)
                } else {
                    // Drift, or the receiver settling: move the anchor, count nothing.
                    start(m, moving: false, into: &out)
                }
                return
            }
        }
        if fastCount >= config.moveConfirmFixes && excessSpeed <= config.maxSpeed {
            startMoving(m, from: anchor, into: &out)
            return
        }
        departure = Stamped(t: m.t, east: m.east, north: m.north)
        departureDistance = distance
        lastTime = m.t
        out.rejection = excessSpeed > config.maxSpeed ? .tooFast : .outlier
    }

    private mutating func startMoving(_ m: Measurement, from anchor: (east: Double, north: Double),
                                      into out: inout GPSFilterOutput) {
        moving = true
        slowSince = .nan
        departure = nil
        previousVelocity = (0, 0)
        if m.hasVelocity {
            east.v = m.vEast
            north.v = m.vNorth
            east.vv = m.rVelocity
            north.vv = m.rVelocity
        } else {
            let elapsed = max(m.t - lastTime, 1)
            east.v = (m.east - anchor.east) / elapsed
            north.v = (m.north - anchor.north) / elapsed
            east.vv = 4
            north.vv = 4
        }
        east.pv = 0
        north.pv = 0
        // The anchor is sure of where the wearer stood, not of where they are now.
        east.pp = max(east.pp, m.rEast)
        north.pp = max(north.pp, m.rNorth)
        debt += pendingDistance
        pendingDistance = 0
        east.updatePosition(m.east, variance: m.rEast)
        north.updatePosition(m.north, variance: m.rNorth)
        if m.hasVelocity {
            east.updateVelocity(m.vEast, variance: m.rVelocity)
            north.updateVelocity(m.vNorth, variance: m.rVelocity)
        }
        out.distance += countStep(from: anchor, usingVelocity: false)
        lastTime = m.t
        window = Stamped(t: m.t, east: anchor.east, north: anchor.north)
        windowSpeed = 1
        out.point = point(for: m)
    }

    /// A gap longer than the motion model can bridge.
    private mutating func bridgeGap(_ m: Measurement, dt: Double, into out: inout GPSFilterOutput) {
        let chord = hypot(m.east - east.p, m.north - north.p)
        let pace = max(config.gapPaceFactor * recentSpeed, config.gapWalkSpeed)
        let sigma = (m.rEast + m.rNorth + east.pp + north.pp).squareRoot()
        let plausible = dt <= config.maxBridgedGap && chord <= pace * dt + 2 * sigma
        let moved = chord > 2 * sigma
        if plausible && !newSegment {
            // Moving before and after a gap of a minute or two: the wearer most
            // likely kept going, along a path at least as long as the chord.
            let before = moving ? hypot(east.v, north.v) : 0
            let after = m.fast ? m.fix.speed : 0
            let kept = dt <= config.keptPaceGap ? min(before, after) * dt : 0
            out.distance += max(moved ? chord : 0, kept)
        }
        // No line through walls: a far exit starts a new segment.
        let startsSegment = newSegment || !plausible
        let nowMoving = m.fast || (moved && plausible && !m.stationaryHint && !m.slow)
        start(m, moving: nowMoving, into: &out)
        if startsSegment, var p = out.point {
            p.newSegment = true
            out.point = p
        }
    }

    /// (Re)starts the filter on this fix.
    private mutating func start(_ m: Measurement, moving isMoving: Bool, into out: inout GPSFilterOutput) {
        let useVelocity = isMoving && m.hasVelocity
        east = KalmanAxis(position: m.east, velocity: useVelocity ? m.vEast : 0,
                          positionVariance: m.rEast, velocityVariance: 4)
        north = KalmanAxis(position: m.north, velocity: useVelocity ? m.vNorth : 0,
                           positionVariance: m.rNorth, velocityVariance: 4)
        tracking = true
        lastTime = m.t
        rejectedSince = .nan
        rejectedCount = 0
        candidate = nil
        departure = nil
        window = Stamped(t: m.t, east: m.east, north: m.north)
        windowSpeed = 1
        moving = isMoving
        slowSince = .nan
        fastCount = 0
        pendingDistance = 0
        consumeSegmentStart()
        out.point = point(for: m)
    }

    // MARK: Helpers

    /// Distance of the step just filtered.
    private mutating func countStep(from before: (east: Double, north: Double), usingVelocity: Bool) -> Double {
        if newSegment {
            newSegment = false
            pointStartsSegment = true
            return 0
        }
        let dt = stepLength
        var ds: Double
        if usingVelocity {
            ds = 0.5 * (hypot(previousVelocity.east, previousVelocity.north) + hypot(east.v, north.v)) * dt
        } else {
            let ue = previousVelocity.east + east.v, un = previousVelocity.north + north.v
            let u = hypot(ue, un)
            let de = east.p - before.east, dn = north.p - before.north
            ds = u > 0.2 ? (de * ue + dn * un) / u : hypot(de, dn)
        }
        ds += debt
        if ds < 0 {
            debt = ds
            ds = 0
        } else {
            debt = 0
        }
        recentSpeed += 0.1 * (ds / max(dt, 1e-3) - recentSpeed)
        return ds
    }

    private mutating func consumeSegmentStart() {
        if newSegment {
            newSegment = false
            pointStartsSegment = true
        }
    }

    private func point(for m: Measurement) -> TrackPoint {
        let speed = moving ? hypot(east.v, north.v) : 0
        var course = Double.nan
        if moving {
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
                          eph: m.fix.eph, newSegment: pointStartsSegment)
    }

    /// True on the fifth refused fix in a row (out of order or stale) whose
    /// clock offsets agree: late or replayed fixes are refused (a draining
    /// backlog changes its offset with every fix), but a receiver clock that
    /// jumped is followed instead of refusing everything after it.
    private mutating func clockJumped(latency: Double) -> Bool {
        guard latency.isFinite else { return false }
        if jumpRun > 0 && abs(latency - jumpLatency) <= 2 {
            jumpRun += 1
        } else {
            jumpRun = 1
        }
        jumpLatency = latency
        if jumpRun >= 5 {
            jumpRun = 0
            return true
        }
        return false
    }

    private func reply(_ out: GPSFilterOutput) -> GPSFilterOutput {
        var o = out
        o.moving = moving
        return o
    }

    /// 1σ per axis (east, north) and the 95 % radius of a fix.
    private func horizontalError(of fix: GPSFix) -> (east: Double, north: Double, r95: Double) {
        if fix.stdLat.isFinite && fix.stdLon.isFinite {
            let r95 = 2.45 * ((fix.stdLat * fix.stdLat + fix.stdLon * fix.stdLon) / 2).squareRoot()
            return (max(fix.stdLon * config.gstErrorInflation, config.minimumSigma),
                    max(fix.stdLat * config.gstErrorInflation, config.minimumSigma), r95)
        }
        if fix.eph.isFinite {
            let r95 = fix.eph / config.ephPessimism
            let s = max(r95 / 2.45, config.minimumSigma)
            return (s, s, r95)
        }
        return (config.defaultSigma, config.defaultSigma, .nan)
    }

    private mutating func measure(_ fix: GPSFix, at t: Double, now: Double,
                                  error: (east: Double, north: Double, r95: Double),
                                  stationary: Bool) -> Measurement {
        let plane = self.plane ?? LocalTangentPlane(originLat: fix.latitude, originLon: fix.longitude)
        self.plane = plane
        let (e, n) = plane.project(lat: fix.latitude, lon: fix.longitude)
        let hasDoppler = dopplerCheck.observe(speed: fix.speed, east: e, north: n, at: t)
        var ve = Double.nan, vn = Double.nan, rv = Double.nan
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
        let fast = hasDoppler && fix.speed >= config.moveSpeed && !stationary
        let slow = hasDoppler && fix.speed < config.stillSpeed
        return Measurement(t: t, now: now, east: e, north: n, rEast: error.east * error.east,
                           rNorth: error.north * error.north, vEast: ve, vNorth: vn, rVelocity: rv,
                           hasDoppler: hasDoppler, fast: fast, slow: slow, stationaryHint: stationary, fix: fix)
    }

    /// Keeps the plane's origin within a few kilometres of the wearer, where
    /// the flat-earth projection stays exact to centimetres.
    private mutating func recentreIfFar() {
        guard tracking, let plane, hypot(east.p, north.p) > 5_000 else { return }
        let (lat, lon) = plane.unproject(east: east.p, north: north.p)
        let de = east.p, dn = north.p
        self.plane = LocalTangentPlane(originLat: lat, originLon: lon)
        east.p = 0
        north.p = 0
        window.east -= de
        window.north -= dn
        if var c = candidate {
            c.east -= de
            c.north -= dn
            candidate = c
        }
        if var d = departure {
            d.east -= de
            d.north -= dn
            departure = d
        }
        dopplerCheck.shift(east: de, north: dn)
    }
}
