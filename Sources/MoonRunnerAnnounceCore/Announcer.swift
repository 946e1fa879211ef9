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
    /// Uploads said, as "target/session" (the newest 256): each is said once.
    private var uploadsSaid: [String] = []
    /// A planned workout is being run (from its first `workout_step` to
    /// `workout_done` or the stop): its own announcements take the place of
    /// the splits and the "every N minutes", which would talk over them.
    private var inWorkout = false
    private var countdown = WorkoutCountdown()

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
        inWorkout = false
        countdown = WorkoutCountdown()
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
        if let text = countdown.update(s.workout, phrases: phrases, units: units) {
            out.append(Announcement(text: text, trigger: "workout_countdown", detectedAt: s.time, receivedAt: now))
        }
        return quiet ? [] : out
    }

    public mutating func receive(event e: EventReply, at now: Double) -> [Announcement] {
        switch e.event {
        case SessionEventKind.workoutStep.rawValue: inWorkout = true
        case SessionEventKind.workoutDone.rawValue, SessionEventKind.start.rawValue, SessionEventKind.stop.rawValue:
            inWorkout = false
        default: break
        }
        if waitsForStatus(e) {
            waiting.append((e, now))
            return []
        }
        let out = say(e, receivedAt: now)
        return quiet ? [] : out
    }

    /// A line of the upload service's watch: a session that reached a target is said once per
    /// target and session, however often its job finishes (an "upload again", a restart after
    /// the answer). Failures are for the phone and `moonrunner upload status`, not the voice.
    public mutating func receive(uploaded u: UploadedReply, at now: Double) -> [Announcement] {
        guard settings.uploads, u.state == "done" else { return [] }
        let key = "\(u.target)/\(u.session)"
        guard !uploadsSaid.contains(key) else { return [] }
        uploadsSaid.append(key)
        if uploadsSaid.count > 256 { uploadsSaid.removeFirst() }
        let text = phrases.say(.uploaded, ["activity": phrases.activity(u.activity), "target": phrases.target(u.target)])
        return quiet ? [] : [Announcement(text: text, trigger: "uploaded", detectedAt: u.time, receivedAt: now)]
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

    private var units: UnitSystem { status?.units ?? .metric }
    private var words: any Wording { phrases.wording }

    /// Kinds of event that are never said, and why. Every other kind is said
    /// (when its setting allows): a new kind has to be placed in one or the other.
    public static let silentKinds: [SessionEventKind: String] = [
        .fault: "a sensor's fault is for the log and `moonrunner status`; the wearer can do nothing about it mid-run",
        .terrainLost: "where the climb comes from is for the session's record; GPS fills the gap and nothing changes for the wearer",
        .terrainRegained: "as for terrain_lost",
    ]

    /// Events said with figures from the STATUS after them: the summary at
    /// the stop, the way back when off course, the heart rate of a new zone.
    private static let saidWithNextStatus: Set<SessionEventKind> = [.stop, .offCourse, .hrZone]

    /// Whether the settings let an event of this kind be said (or, for the
    /// auto-pause, cued by its tone).
    func enabled(_ kind: SessionEventKind) -> Bool {
        switch kind {
        case .start: settings.start
        case .pause, .resume: settings.pauseResume
        case .autopause, .autoresume: settings.autoPause || settings.autoPauseCue
        case .lap: settings.laps
        case .split: settings.splits
        case .stop: settings.summary
        case .badge: settings.badges
        case .offCourse, .onCourse, .courseToGo, .courseFinished, .arrived: settings.course
        case .turnAhead, .turnNow: settings.turns
        case .gpsLost, .gpsRegained: settings.gps
        case .hrConnected, .hrLost, .hrZone: settings.heartRate
        case .fault, .terrainLost, .terrainRegained: false  // never said: see `silentKinds`
        case .workoutStep, .targetLow, .targetHigh, .targetOK, .workoutDone: true  // the plan the wearer chose to run
        case .batteryLow: settings.battery
        }
    }

    private func waitsForStatus(_ e: EventReply) -> Bool {
        guard let kind = SessionEventKind(rawValue: e.event) else { return false }
        return Self.saidWithNextStatus.contains(kind) && enabled(kind, e)
    }

    /// `enabled(kind)`, but for a stop the battery forced, which the battery's setting allows too.
    private func enabled(_ kind: SessionEventKind, _ e: EventReply) -> Bool {
        enabled(kind) || (kind == .stop && e.cause == "battery" && settings.battery)
    }

    /// What is said for an event, with the auto-pause's tone; nothing for a
    /// kind this announcer does not know (a newer daemon's).
    private func say(_ e: EventReply, receivedAt: Double) -> [Announcement] {
        guard let kind = SessionEventKind(rawValue: e.event), enabled(kind, e) else { return [] }
        let text = sentence(kind, e) ?? ""
        let cue = self.cue(for: kind)
        guard !text.isEmpty || cue != nil else { return [] }
        return [Announcement(text: text, cue: cue, trigger: e.event, detectedAt: e.detectedAt, receivedAt: receivedAt)]
    }

    /// The tone before the voice: on auto-pause and auto-resume only.
    private func cue(for kind: SessionEventKind) -> Announcement.Cue? {
        guard settings.autoPauseCue else { return nil }
        if kind == .autopause { return .pause }
        return kind == .autoresume ? .resume : nil
    }

    /// The sentence for an event of an enabled kind; nil when there is nothing to say.
    private func sentence(_ kind: SessionEventKind, _ e: EventReply) -> String? {
        let p = phrases
        switch kind {
        case .start: return p.say(.start, ["activity": p.activity(e.detail)])
        // Only the wearer's own: not the resume after the daemon restarted (cause "recovery").
        case .pause: return e.cause == "command" ? p.say(.pause) : nil
        case .resume: return e.cause == "command" ? p.say(.resume) : nil
        case .autopause: return settings.autoPause ? p.say(.autopause) : nil
        case .autoresume: return settings.autoPause ? p.say(.autoresume) : nil
        case .lap: return p.say(.lap, ["number": e.detail.flatMap { Int($0) }.map(words.count) ?? ""])
        case .split: return inWorkout ? nil : split(e)
        case .stop:
            guard e.cause == "battery", settings.battery else { return summary() }
            return settings.summary ? p.say(.batteryStop) + words.sentenceBreak + summary() : p.say(.batteryStop)
        case .badge: return badge(e)
        case .offCourse: return wayBack()
        case .onCourse: return p.say(.onCourse)
        case .courseToGo:
            guard let metres = e.detail.flatMap(Double.init), metres.isFinite, metres > 0 else { return nil }
            return p.say(.courseToGo, ["distance": words.nearDistance(metres, units)])
        case .courseFinished: return p.say(.courseFinished)
        case .arrived:
            if let name = e.detail, !name.isEmpty { return p.say(.arrivedAt, ["name": name]) }
            return p.say(.arrived)
        case .gpsLost: return p.say(.gpsLost)
        case .gpsRegained: return p.say(.gpsRegained)
        case .hrConnected: return p.say(.heartRateConnected)
        case .hrLost: return p.say(.heartRateLost)
        case .hrZone: return heartRateZone(e)
        case .turnAhead: return e.cue.flatMap { cueAhead($0) }
        case .turnNow: return e.cue.flatMap { turnNow($0) }
        case .workoutStep, .targetLow, .targetHigh, .targetOK, .workoutDone:
            return e.workout.flatMap { WorkoutSpeech(phrases: p, units: units).sentence(kind, $0) }
        case .batteryLow: return batteryLow(e)
        case .fault, .terrainLost, .terrainRegained: return nil  // never said: see `silentKinds`
        }
    }

    /// The charge the event tells, and the minutes left from the latest STATUS, to the minute.
    private func batteryLow(_ e: EventReply) -> String? {
        guard let percent = e.detail.flatMap({ Int($0) }) else { return nil }
        if let minutes = status?.battery?.minutesLeft, minutes.isFinite, minutes >= 1 {
            return phrases.say(.batteryLow, ["percent": words.count(percent),
                                             "time": words.duration((minutes.rounded()) * 60)])
        }
        return phrases.say(.batteryLowOnly, ["percent": words.count(percent)])
    }

    /// A cue ahead: the turn and the street it leads onto, or the place.
    private func cueAhead(_ cue: CueEvent) -> String? {
        let w = phrases.cueWords
        // Said at least 10 m ahead: closer, the distance would round to nothing.
        let distance = words.nearDistance(max(10, cue.distanceM), units)
        if let turn = w.turns[cue.kind] {
            let phrase = cue.then.reduce(turn) { said, next in
                phrases.say(.turnThen, ["turn": said, "then": w.thenTurns[next] ?? ""])
            }
            if let name = cue.name, !name.isEmpty {
                return phrases.say(.turnAheadOnto, ["distance": distance, "turn": phrase, "name": name])
            }
            return phrases.say(.turnAhead, ["distance": distance, "turn": phrase])
        }
        let name = cue.name ?? ""
        if cue.kind == .generic && !name.isEmpty { return phrases.say(.pointAhead, ["distance": distance, "place": name]) }
        let place = w.places[cue.kind] ?? ""
        if name.isEmpty { return phrases.say(.pointAhead, ["distance": distance, "place": place]) }
        return phrases.say(.pointAheadNamed, ["distance": distance, "place": place, "name": name])
    }

    /// At the turn: the first turn only, short ("Turn left now.").
    private func turnNow(_ cue: CueEvent) -> String? {
        guard let turn = phrases.cueWords.turns[cue.kind] else { return nil }
        return Self.capitalised(phrases.say(.turnNow, ["turn": turn]))
    }

    /// The sentence with its first letter in capitals (a no-op for Chinese).
    static func capitalised(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.uppercased() + s.dropFirst()
    }

    /// The split's distance, its clock time and its moving pace (a ride's speed); a hike's climb rate after it.
    private func split(_ e: EventReply) -> String? {
        guard let split = e.split, let pace = split.paceS else { return nil }
        let shown = (status?.activity.flatMap(Activity.init(rawValue:)) ?? .run).profile
        var values = ["distance": words.units(split.number * shown.splitUnits, units),
                      "time": words.duration(split.elapsedS), "pace": words.pace(pace), "unit": words.unitName(units),
                      "speed": words.speed(units.metresPerUnit / pace, units)]
        guard shown.tellsClimbRate, let rise = split.elevationChangeM, split.movingS > 0 else {
            return phrases.say(shown.showsSpeed ? .splitSpeed : .split, values)
        }
        values["rate"] = words.climbRate(max(0, rise) / split.movingS * 3600, units)
        return phrases.say(.splitClimb, values)
    }

    private func badge(_ e: EventReply) -> String {
        let key: PhraseKey = switch e.cause {
        case "earned": .badgeEarned
        case "silver": .badgeSilver
        case "gold": .badgeGold
        default: .badgePassed
        }
        return phrases.say(key, ["badge": phrases.badge(e.detail ?? "")])
    }

    /// Off course: the way back, from the STATUS after the event, as far as it is known.
    private func wayBack() -> String {
        guard let bearing = course?.bearingToCourseDeg, bearing.isFinite else { return phrases.say(.offCourse) }
        if let d = course?.distanceToCourseM, d.isFinite, d > 0 {
            return phrases.say(.offCourseDirectionDistance, ["direction": words.direction(bearing),
                                                            "distance": words.nearDistance(d, units)])
        }
        return phrases.say(.offCourseDirection, ["direction": words.direction(bearing)])
    }

    /// The heart rate from the STATUS after the event, said as that STATUS's zone's.
    private func heartRateZone(_ e: EventReply) -> String? {
        guard let zone = e.detail.flatMap({ Int($0) }) else { return nil }
        if let bpm = status?.hrBpm, bpm.isFinite {
            return phrases.say(.heartRateZone, ["bpm": words.count(Int(bpm.rounded())), "zone": words.count(zone)])
        }
        return phrases.say(.heartRateZoneOnly, ["zone": words.count(zone)])
    }

    /// Distance, moving time and average pace of the session just stopped.
    private func summary() -> String {
        guard let s = status else { return phrases.say(.summaryShort, ["time": ""]) }
        guard s.distanceM >= 50, s.movingS > 0 else {
            return phrases.say(.summaryShort, ["time": words.duration(s.elapsedS)])
        }
        let pace = s.movingS / s.distanceM * units.metresPerUnit
        let ride = (s.activity.flatMap(Activity.init(rawValue:)) ?? .run).profile.showsSpeed
        return phrases.say(ride ? .summarySpeed : .summary,
                           ["activity": phrases.activity(s.activity), "distance": words.distance(s.distanceM, units),
                            "time": words.duration(s.movingS), "pace": words.pace(pace), "unit": words.unitName(units),
                            "speed": words.speed(s.distanceM / s.movingS, units)])
    }

    /// Every N minutes of moving time, while recording. The first STATUS of a
    /// session (or after a reconnect) only sets the next mark.
    private mutating func interval(_ s: StatusReply, at now: Double) -> [Announcement] {
        guard settings.everyMinutes > 0, s.state == .recording, !inWorkout else { return [] }
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
        let ride = (s.activity.flatMap(Activity.init(rawValue:)) ?? .run).profile.showsSpeed
        let text = phrases.say(ride ? .intervalSpeed : .interval,
                               ["time": words.duration(passed * period), "distance": words.distance(s.distanceM, units),
                                "pace": words.pace(pace), "unit": words.unitName(units),
                                "speed": words.speed(s.distanceM / s.movingS, units)])
        return [Announcement(text: text, trigger: "interval", detectedAt: s.time, receivedAt: now)]
    }
}
