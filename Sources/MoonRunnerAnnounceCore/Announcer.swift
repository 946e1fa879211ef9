import MoonRunnerCore
import MoonRunnerProtocol

/// Decides what to say, from the watcher's lines: each `EVENT` as it comes,
/// a `STATUS` every second. Pure: the caller passes the time a line arrived
/// (its monotonic clock) and speaks what comes back.
///
/// Two events wait for the STATUS that follows them, because what is said
/// needs figures taken after the event: the summary at `stop` and the way
/// back at `off_course`. They wait at most `statusWait` seconds.
public struct Announcer: Sendable {
    public let settings: AnnounceSettings
    public let phrases: PhraseTable
    /// The daemon asks for silence (`STATUS.quiet`).
    public private(set) var quiet = false

    /// Seconds an event waits for a fresher STATUS.
    public static let statusWait = 2.5

    private var status: StatusReply?
    private var course: CourseGlance?
    private var waiting: [(event: EventReply, receivedAt: Double)] = []
    /// Moving seconds at which the next "every N minutes" is due, per session.
    private var nextInterval: (session: Int64?, moving: Double)?

    public init(settings: AnnounceSettings) {
        self.settings = settings
        phrases = PhraseTable.of(settings.language)
    }

    /// A new connection: what was known about the daemon no longer holds,
    /// and nothing is said about what changed while away.
    public mutating func connected() {
        status = nil
        course = nil
        waiting = []
        nextInterval = nil
    }

    public mutating func receive(status s: StatusReply, course glance: CourseGlance?, at now: Double) -> [Announcement] {
        status = s
        course = glance
        quiet = s.quiet ?? false
        var out: [Announcement] = []
        let ready = waiting.filter { s.time >= $0.event.detectedAt }
        waiting.removeAll { s.time >= $0.event.detectedAt }
        for w in ready { out += say(w.event, receivedAt: w.receivedAt) }
        out += interval(s, at: now)
        return quiet ? [] : out
    }

    public mutating func receive(event e: EventReply, at now: Double) -> [Announcement] {
        if waitsForStatus(e) {
            waiting.append((e, now))
            return []
        }
        let out = say(e, receivedAt: now)
        return quiet ? [] : out
    }

    /// Time passes: events that waited long enough for a STATUS are said with what is known.
    public mutating func tick(at now: Double) -> [Announcement] {
        let due = waiting.filter { now - $0.receivedAt >= Self.statusWait }
        guard !due.isEmpty else { return [] }
        waiting.removeAll { now - $0.receivedAt >= Self.statusWait }
        let out = due.flatMap { say($0.event, receivedAt: $0.receivedAt) }
        return quiet ? [] : out
    }

    // MARK: What is said

    private var units: UnitSystem { status.flatMap { UnitSystem(rawValue: $0.units) } ?? .metric }
    private var words: any Wording { phrases.wording }

    private func waitsForStatus(_ e: EventReply) -> Bool {
        switch e.event {
        case "stop": settings.summary
        case "off_course": settings.course
        case "hr_zone": settings.heartRate
        default: false
        }
    }

    private func say(_ e: EventReply, receivedAt: Double) -> [Announcement] {
        func one(_ text: String, cue: Announcement.Cue? = nil) -> [Announcement] {
            guard !text.isEmpty || cue != nil else { return [] }
            return [Announcement(text: text, cue: cue, trigger: e.event, detectedAt: e.detectedAt, receivedAt: receivedAt)]
        }
        let p = phrases
        switch e.event {
        case "start" where settings.start:
            return one(p.say(e.detail == Activity.walk.rawValue ? .startWalk : .startRun))
        case "pause" where settings.pauseResume && e.cause == "command":
            return one(p.say(.pause))
        case "resume" where settings.pauseResume && e.cause == "command":
            return one(p.say(.resume))
        case "autopause", "autoresume":
            let pausing = e.event == "autopause"
            let cue: Announcement.Cue? = settings.autoPauseCue ? (pausing ? .pause : .resume) : nil
            return one(settings.autoPause ? p.say(pausing ? .autopause : .autoresume) : "", cue: cue)
        case "lap" where settings.laps:
            return one(p.say(.lap, ["number": e.detail.flatMap { Int($0) }.map(words.count) ?? ""]))
        case "split" where settings.splits:
            guard let split = e.split, let pace = split.paceS else { return [] }
            return one(p.say(.split, ["distance": words.units(split.number, units), "time": words.duration(split.elapsedS),
                                      "pace": words.pace(pace), "unit": words.unitName(units)]))
        case "stop" where settings.summary:
            return one(summary())
        case "badge" where settings.badges:
            let name = p.badge(e.detail ?? "")
            let key: PhraseKey = switch e.cause {
            case "earned": .badgeEarned
            case "silver": .badgeSilver
            case "gold": .badgeGold
            default: .badgePassed
            }
            return one(p.say(key, ["badge": name]))
        case "off_course" where settings.course:
            guard let bearing = course?.bearingToCourseDeg, bearing.isFinite else { return one(p.say(.offCourse)) }
            if let d = course?.distanceToCourseM, d.isFinite, d > 0 {
                return one(p.say(.offCourseDirectionDistance, ["direction": words.direction(bearing),
                                                              "distance": words.nearDistance(d, units)]))
            }
            return one(p.say(.offCourseDirection, ["direction": words.direction(bearing)]))
        case "on_course" where settings.course:
            return one(p.say(.onCourse))
        case "course_to_go" where settings.course:
            guard let metres = e.detail.flatMap(Double.init), metres.isFinite, metres > 0 else { return [] }
            return one(p.say(.courseToGo, ["distance": words.nearDistance(metres, units)]))
        case "course_finished" where settings.course:
            return one(p.say(.courseFinished))
        case "arrived" where settings.course:
            if let name = e.detail, !name.isEmpty { return one(p.say(.arrivedAt, ["name": name])) }
            return one(p.say(.arrived))
        case "gps_lost" where settings.gps:
            return one(p.say(.gpsLost))
        case "gps_regained" where settings.gps:
            return one(p.say(.gpsRegained))
        case "hr_connected" where settings.heartRate:
            return one(p.say(.heartRateConnected))
        case "hr_lost" where settings.heartRate:
            return one(p.say(.heartRateLost))
        case "hr_zone" where settings.heartRate:
            // The heart rate from the STATUS after the event, said as that STATUS's zone's.
            guard let zone = e.detail.flatMap({ Int($0) }) else { return [] }
            if let bpm = status?.hrBpm, bpm.isFinite {
                return one(p.say(.heartRateZone, ["bpm": words.count(Int(bpm.rounded())), "zone": words.count(zone)]))
            }
            return one(p.say(.heartRateZoneOnly, ["zone": words.count(zone)]))
        default:
            return []
        }
    }

    /// Distance, moving time and average pace of the session just stopped.
    private func summary() -> String {
        guard let s = status else { return phrases.say(.summaryShort, ["time": ""]) }
        guard s.distanceM >= 50, s.movingS > 0 else {
            return phrases.say(.summaryShort, ["time": words.duration(s.elapsedS)])
        }
        let pace = s.movingS / s.distanceM * units.metresPerUnit
        return phrases.say(s.activity == Activity.walk.rawValue ? .summaryWalk : .summaryRun,
                           ["distance": words.distance(s.distanceM, units), "time": words.duration(s.movingS),
                            "pace": words.pace(pace), "unit": words.unitName(units)])
    }

    /// Every N minutes of moving time, while recording. The first STATUS of a
    /// session (or after a reconnect) only sets the next mark.
    private mutating func interval(_ s: StatusReply, at now: Double) -> [Announcement] {
        guard settings.everyMinutes > 0, s.state == SessionState.recording.rawValue else { return [] }
        let period = Double(settings.everyMinutes * 60)
        let passed = (s.movingS / period).rounded(.down)
        guard let due = nextInterval, due.session == s.session else {
            nextInterval = (s.session, (passed + 1) * period)
            return []
        }
        guard s.movingS >= due.moving else { return [] }
        nextInterval = (s.session, (passed + 1) * period)
        guard s.distanceM > 0 else { return [] }
        let pace = s.movingS / s.distanceM * units.metresPerUnit
        let text = phrases.say(.interval, ["time": words.duration(passed * period),
                                           "distance": words.distance(s.distanceM, units),
                                           "pace": words.pace(pace), "unit": words.unitName(units)])
        return [Announcement(text: text, trigger: "interval", detectedAt: s.time, receivedAt: now)]
    }
}
