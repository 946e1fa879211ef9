/// The heart rate in the session engine: readings taken, refused and counted,
/// the zone crossed, the live figures, and a resumed session's readings taken back.
extension SessionEngine {
    /// The session's heart rate so far over its moving time, by the rules of
    /// the stored session's (`HeartRateSummary`, up to the session's end once
    /// it stopped); nil while idle.
    public var heartRateSummary: HeartRateSummary? {
        guard state != .idle, stats.startTime.isFinite else { return nil }
        return heartRateTally.summary(paused: PausedTime(pauses), from: stats.startTime,
                                      to: stats.startTime + stats.elapsed)
    }

    /// Takes in the readings a resumed session had stored, so that its live figures go on from them.
    public mutating func restoreHeartRate(_ readings: [HeartRatePoint]) {
        heartRateTally = HeartRateTally(profile: config.heartRate)
        for r in readings { heartRateTally.add(r) }
        heartRateTally.settle(at: now, pauses: pauses, from: stats.startTime)
    }

    /// The heart rate now: the last reading's, for `HeartRateSummary.hold`
    /// seconds; nil without a reading or after one without a heart rate.
    public var currentHeartRate: Double? {
        heartRate.isFinite && now - heartRateTime < HeartRateSummary.hold ? heartRate : nil
    }
    /// The heart-rate zone now (1–5, with hysteresis); nil without a heart rate.
    public var heartRateZone: Int? { currentHeartRate == nil ? nil : zones.zone }

    /// One heart-rate reading. A reading without a heart rate (no skin contact,
    /// a value of 0) makes it missing at once; an implausible one, or one out of
    /// order, is refused and counted. While a session is open the readings and
    /// the plausible RR intervals go out for the store; while recording, a
    /// crossing into another zone is an `hr_zone` event.
    public mutating func ingest(_ sample: HeartRateSample, emit: (EngineOutput) -> Void) {
        guard sample.t >= lastHeartRateSample else {
            heartRateCounters.rejected += 1
            heartRateCounters.outOfOrder += 1
            return
        }
        lastHeartRateSample = sample.t
        advanceClock(sample.t)
        var rr = sample.rrMilliseconds
        rr.removeAll { !HeartRateValidity.plausibleRR.contains($0) }
        heartRateCounters.rrRejected += sample.rrMilliseconds.count - rr.count
        heartRateCounters.rrIntervals += rr.count
        if state.isActive, !rr.isEmpty { emit(.rrIntervals(at: sample.t, rr)) }
        switch HeartRateValidity(sample) {
        case .implausible:
            heartRateCounters.rejected += 1
        case .missing:
            heartRateCounters.missing += 1
            heartRate = .nan
            heartRateTime = sample.t
            _ = zones.update(bpm: .nan, at: sample.t)
            if state.isActive { take(HeartRatePoint(time: sample.t, bpm: .nan), emit: emit) }
        case .valid:
            heartRateCounters.samples += 1
            heartRate = Double(sample.bpm)
            heartRateTime = sample.t
            if state.isActive { take(HeartRatePoint(time: sample.t, bpm: heartRate), emit: emit) }
            if let z = zones.update(bpm: heartRate, at: sample.t), state == .recording {
                emit(.event(SessionEvent(kind: .hrZone, time: sample.t, detectedAt: sample.t, cause: "heart_rate",
                                         state: state, detail: String(z))))
            }
        }
        checkAutoPause(emit: emit)
    }

    /// A reading of the open session: stored, and counted in the live figures.
    private mutating func take(_ r: HeartRatePoint, emit: (EngineOutput) -> Void) {
        emit(.heartRate(r))
        heartRateTally.add(r)
        heartRateTally.settle(at: r.time, pauses: pauses, from: stats.startTime)
    }
}
