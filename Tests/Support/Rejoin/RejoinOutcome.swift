import Foundation
import MoonRunnerCore

/// What a matcher made of a scenario run, against its truth (the rejoin's
/// targets: `on_course` within 15 s of the first
/// second back within the threshold of the right part, nothing matched more
/// than 100 m from it, no second `off_course` after the rejoin; one
/// `off_course` and one `on_course` for each time off (the crossing family
/// is off twice); and the first `off_course`'s delay).
public struct RejoinOutcome: Sendable, Encodable, Equatable {
    public var name: String
    public var family: RejoinFamily
    public var ratio: Double
    public var returnAngle: Double
    public var noise: Double
    public var speed: Double
    public var offAlerts: Int
    public var onAlerts: Int
    /// The first `off_course`, detected, minus the truth's first second off; nil without one.
    public var offDelay: Double?
    /// The rejoin's `on_course` (the one after the last time off), detected,
    /// minus the truth's `near` (back within 50 m of the right part, whatever
    /// the direction); its back-dated time minus `near`; detected minus `back`
    /// (within 50 m and moving along the course, for
    /// reference). Nil without one.
    public var onDelay: Double?
    public var onDelayTime: Double?
    public var onDelayBack: Double?
    /// Each time off's `on_course` delay (detected minus its `near`); nil where none came.
    public var onDelays: [Double?] = []
    /// Times the truth has the runner off course, and periods with no `off_course` for them.
    public var periods = 0
    public var periodsUnalerted = 0
    /// Seconds matched more than 100 m from the truth's progress (or, on the
    /// runner's own path, from the stretch they skip).
    public var wrongSeconds: Int
    /// `off_course` alerts after the rejoin's `on_course`.
    public var secondOff: Int
    /// Progress error while on course (truth and matcher), after the first 60 s: median, 95th percentile, count.
    public var progressMedian: Double?
    public var progressP95: Double?
    public var progressCount: Int

    /// The targets' limits (seconds; `wrongMetres` in metres) and `settle`, the
    /// seconds from the start before a progress error counts.
    public static let onDelayLimit = 15.0
    public static let offDelayLimit = 15.0
    public static let wrongMetres = 100.0
    public static let settle = 60.0

    /// How far from the truth's `back` the `on_course` may be, seconds: 15,
    /// or on a merge (a return within 45° of the course) the time the runner
    /// takes to close 2σ of GPS error on the course, when that is longer.
    /// There the moment they come within 50 m is blurred by the fix's error
    /// itself: a walker merging at 20° closes at 0.5 m/s, so 10 m of error
    /// is 20 s either way, for any matcher.
    public var onDelayLimit: Double {
        guard returnAngle < RejoinRun.alongDegrees else { return Self.onDelayLimit }
        return max(Self.onDelayLimit, 2 * noise / (speed * sin(returnAngle * .pi / 180)))
    }

    /// The targets this outcome misses (empty: all met).
    public var missed: [String] {
        var out: [String] = []
        for d in onDelays.isEmpty ? [nil] : onDelays {
            if let d, abs(d) <= onDelayLimit { continue }
            out.append("on_course \(d.map { String(format: "%+.0f s", $0) } ?? "never")")
        }
        if wrongSeconds > 0 { out.append("\(wrongSeconds) s matched wrong") }
        if secondOff > 0 { out.append("\(secondOff) second off_course") }
        if offAlerts < 1 || periodsUnalerted > 0 { out.append("no off_course") }
        return out
    }

    /// Course following's limit on the `off_course` (reported, not one of the rejoin's targets).
    public var offLate: Bool { offDelay.map { abs($0) > Self.offDelayLimit } ?? false }

    private enum CodingKeys: String, CodingKey {
        case name, family, ratio, returnAngle = "return_angle", noise, speed, offAlerts = "off_alerts",
             onAlerts = "on_alerts", offDelay = "off_delay_s", onDelay = "on_delay_s",
             onDelayTime = "on_delay_time_s", onDelayBack = "on_delay_back_s", onDelays = "on_delays_s",
             periods, periodsUnalerted = "periods_unalerted", wrongSeconds = "wrong_s",
             secondOff = "second_off", progressMedian = "progress_median_m", progressP95 = "progress_p95_m",
             progressCount = "progress_n", onDelayLimit = "on_limit_s", missed
    }

    /// Unknown figures are written as null (not left out), for the tools that read them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(family, forKey: .family)
        try c.encode(ratio, forKey: .ratio)
        try c.encode(returnAngle, forKey: .returnAngle)
        try c.encode(noise, forKey: .noise)
        try c.encode(speed, forKey: .speed)
        try c.encode(offAlerts, forKey: .offAlerts)
        try c.encode(onAlerts, forKey: .onAlerts)
        try c.encode(offDelay, forKey: .offDelay)
        try c.encode(onDelay, forKey: .onDelay)
        try c.encode(onDelayTime, forKey: .onDelayTime)
        try c.encode(onDelayBack, forKey: .onDelayBack)
        try c.encode(onDelays, forKey: .onDelays)
        try c.encode(periods, forKey: .periods)
        try c.encode(periodsUnalerted, forKey: .periodsUnalerted)
        try c.encode(wrongSeconds, forKey: .wrongSeconds)
        try c.encode(secondOff, forKey: .secondOff)
        try c.encode(progressMedian, forKey: .progressMedian)
        try c.encode(progressP95, forKey: .progressP95)
        try c.encode(progressCount, forKey: .progressCount)
        try c.encode(onDelayLimit, forKey: .onDelayLimit)
        try c.encode(missed, forKey: .missed)
    }
}

/// A course alert as a matcher or the engine reported it, in seconds from the run's start.
public struct RejoinAlert: Sendable, Equatable {
    public var off: Bool
    /// Back-dated to when the evidence began.
    public var time: Double
    public var detectedAt: Double

    public init(off: Bool, time: Double, detectedAt: Double) {
        self.off = off
        self.time = time
        self.detectedAt = detectedAt
    }
}

extension RejoinRun {
    /// Scores matches (seconds from the start, progress while on course) and alerts.
    public func score(matches: [(t: Double, progress: Double?)], alerts: [RejoinAlert]) -> RejoinOutcome {
        let s = scenario
        var o = RejoinOutcome(name: s.name, family: s.family, ratio: s.ratio, returnAngle: s.returnAngle,
                              noise: s.noise, speed: s.speed, offAlerts: alerts.filter(\.off).count,
                              onAlerts: alerts.filter { !$0.off }.count, wrongSeconds: 0, secondOff: 0, progressCount: 0)
        if let a = alerts.first(where: \.off), let t = firstOff { o.offDelay = a.detectedAt - t }
        // Each time off: its off_course, the on_course after it; the last is the rejoin.
        o.periods = periods.count
        var after = -Double.infinity
        var rejoinAlert: RejoinAlert?
        for period in periods {
            guard let off = alerts.first(where: { $0.off && $0.detectedAt > after }) else {
                o.periodsUnalerted += 1
                o.onDelays.append(nil)
                continue
            }
            let on = alerts.first { !$0.off && $0.detectedAt >= off.detectedAt }
            o.onDelays.append(on.map { $0.detectedAt - period.near })
            rejoinAlert = on
            after = on?.detectedAt ?? .infinity
        }
        if let on = rejoinAlert, let near {
            o.onDelay = on.detectedAt - near
            o.onDelayTime = on.time - near
            if let back { o.onDelayBack = on.detectedAt - back }
            o.secondOff = alerts.filter { $0.off && $0.detectedAt > on.detectedAt }.count
        } else {
            o.secondOff = max(0, o.offAlerts - periods.count)
        }
        var errors: [Double] = []
        for m in matches {
            guard let p = m.progress else { continue }
            let i = Int(m.t.rounded())
            guard i >= 0 && i < truth.count else { continue }
            if let tp = truth[i].progress {
                let e = abs(p - tp)
                if e > RejoinOutcome.wrongMetres { o.wrongSeconds += 1 }
                if m.t >= RejoinOutcome.settle { errors.append(e) }
            } else if p < leave - RejoinOutcome.wrongMetres || p > rejoin + RejoinOutcome.wrongMetres {
                o.wrongSeconds += 1
            }
        }
        errors.sort()
        o.progressCount = errors.count
        if !errors.isEmpty {
            o.progressMedian = errors[errors.count / 2]
            o.progressP95 = errors[min(errors.count - 1, Int(Double(errors.count) * 0.95))]
        }
        return o
    }

    /// The matcher alone, fed each fix as the engine would feed it a raw one.
    public func matched(_ config: CourseMatcherConfig = CourseMatcherConfig()) -> RejoinOutcome {
        var m = CourseMatcher(geometry: geometry, config: config)
        var matches: [(t: Double, progress: Double?)] = []
        var alerts: [RejoinAlert] = []
        for i in fixes.indices {
            let f = input(i)
            let (match, transition) = m.update(latitude: f.latitude, longitude: f.longitude, sigma: f.sigma,
                                               speed: f.speed, heading: f.heading, at: f.t)
            matches.append((f.t, match.progress))
            switch transition {
            case let .offCourse(since)?: alerts.append(RejoinAlert(off: true, time: since, detectedAt: f.t))
            case let .onCourse(since)?: alerts.append(RejoinAlert(off: false, time: since, detectedAt: f.t))
            case nil: break
            }
        }
        return score(matches: matches, alerts: alerts)
    }

    /// The whole offline analysis (`moonrunner analyze --course`): the GPS
    /// filter, the session engine and its navigator, as the device runs them.
    public func analysed(_ config: CourseMatcherConfig = CourseMatcherConfig()) -> RejoinOutcome {
        var engine = EngineConfig()
        engine.navigation.matcher = config
        var analysis = TraceAnalysis(config: engine, course: FollowedCourse(id: nil, name: scenario.name, geometry: geometry))
        for f in fixes { analysis.feed(f, at: f.time) }
        let summary = analysis.finish(at: (fixes.last?.time ?? Self.epoch) + 1)
        let matches = (summary.courseTimeline ?? []).map { (t: $0.time - Self.epoch, progress: $0.offCourse ? nil : $0.progress) }
        let alerts = summary.events.compactMap { e -> RejoinAlert? in
            switch e.kind {
            case .offCourse: RejoinAlert(off: true, time: e.time - Self.epoch, detectedAt: e.detectedAt - Self.epoch)
            case .onCourse: RejoinAlert(off: false, time: e.time - Self.epoch, detectedAt: e.detectedAt - Self.epoch)
            default: nil
            }
        }
        return score(matches: matches, alerts: alerts)
    }
}
