import MoonRunnerCore

/// Everything the announcer can say, by meaning. Each language's table
/// gives a template per key with `{name}` slots that `Wording` fills.
public enum PhraseKey: String, Sendable, CaseIterable {
    /// {activity}: the table's name of it ("Run", "Hike"; `activityNames`).
    case start
    case pause, resume, autopause, autoresume
    /// {number}
    case lap
    /// {distance} {time} {pace} {unit}
    case split
    /// {distance} {time} {speed}: a ride's.
    case splitSpeed
    /// {distance} {time} {pace} {unit} {rate}: a hike's, with its climb in metres (feet) an hour.
    case splitClimb
    /// {time} {distance} {pace} {unit}: every N minutes.
    case interval
    /// {time} {distance} {speed}: a ride's.
    case intervalSpeed
    /// {activity} {distance} {time} {pace} {unit}
    case summary
    /// {activity} {distance} {time} {speed}: a ride's.
    case summarySpeed
    /// {time}: a session that hardly moved.
    case summaryShort
    /// {activity} {target}: a finished session reached a target of the upload service.
    case uploaded
    /// {badge}
    case badgeEarned, badgePassed, badgeSilver, badgeGold
    case offCourse
    /// {direction}
    case offCourseDirection
    /// {direction} {distance}
    case offCourseDirectionDistance
    case onCourse
    /// {distance}
    case courseToGo
    case courseFinished
    case arrived
    /// {name}
    case arrivedAt
    case gpsLost, gpsRegained
    case heartRateConnected, heartRateLost
    /// {bpm} {zone}
    case heartRateZone
    /// {zone}: no heart rate in the STATUS that followed.
    case heartRateZoneOnly
    /// {distance} {turn}: a turn ahead ("In 100 metres, turn left.").
    case turnAhead
    /// {distance} {turn} {name}: a turn ahead onto a named street.
    case turnAheadOnto
    /// {turn}: at the turn ("Turn left now.").
    case turnNow
    /// {turn} {then}: a turn followed closely by another ("turn left, then right").
    case turnThen
    /// {distance} {place}: a point of interest ahead ("In 200 metres, water.").
    case pointAhead
    /// {distance} {place} {name}: a named point of interest ahead.
    case pointAheadNamed
    /// {step} {end}: a workout step without a target begins ("Warm-up: 15 minutes.").
    case workoutStep
    /// {step} {end} {target}: a step with its target ("Interval 2 of 6: 800 metres at 3 50 to 4 minutes per kilometre.").
    case workoutStepTarget
    /// {step} {end}: a rest or recovery ("Rest, 90 seconds.").
    case workoutBreak
    /// {step} {round} {rounds}: a step inside a repeat ("Interval 2 of 6").
    case stepOfRounds
    /// The step's kind when it has no name of its own.
    case intensityWarmup, intensityActive, intensityInterval, intensityRest, intensityRecovery, intensityCooldown
    /// {fast} {slow} {unit}: a pace band.
    case paceBand
    /// {low} {high}: a heart-rate band in bpm.
    case heartRateBand
    /// {zone}: a heart-rate zone as a target.
    case heartRateZoneTarget
    /// {low} {high}: a cadence band in steps a minute.
    case cadenceBand
    /// How a step ends besides its time or distance; {bpm} for the heart rate's.
    case untilLap, untilHeartRateAbove, untilHeartRateBelow
    /// The pace alerts: below the band, above it, back in it.
    case speedUp, easeOff, backOnPace
    /// The heart rate's alerts.
    case heartRateLow, heartRateHigh, heartRateBack
    /// The cadence's alerts.
    case cadenceLow, cadenceHigh, cadenceBack
    /// {steps}: the last step ended, every step run in full; {done} of {steps} when the lap key cut some short.
    case workoutDone, workoutDonePartly
    /// The summary's two figures: {percent} of the judged time on target; {pace} per {unit} over the efforts.
    case workoutOnTarget, workoutEffortPace
    /// {distance} / {time}: what is left of an effort; {time}: a break's last seconds.
    case distanceLeft, timeLeft, getReady
    /// {percent} {time}: the battery at a warning level, with the time it lasts.
    case batteryLow
    /// {percent}: the same while the time it lasts is unknown.
    case batteryLowOnly
    /// Said before the summary when a flat battery stopped the session.
    case batteryStop
}

/// How each kind of cue is said: the turn as an instruction ("turn left",
/// "bear right"; capitalised for the start of a sentence by the table), the
/// point of interest as a noun ("water", "a category 2 climb").
public struct CueWords: Sendable {
    /// The instruction for each turn kind, as said mid-sentence.
    public let turns: [CueKind: String]
    /// The same after "then" (English drops the verb: "then right").
    public let thenTurns: [CueKind: String]
    /// The noun for each point-of-interest kind.
    public let places: [CueKind: String]

    public init(turns: [CueKind: String], thenTurns: [CueKind: String], places: [CueKind: String]) {
        self.turns = turns
        self.thenTurns = thenTurns
        self.places = places
    }
}

/// One language: its templates, its badge names and how it says numbers.
public struct PhraseTable: Sendable {
    public let language: Language
    public let templates: [PhraseKey: String]
    /// Badge names by the badge's English name as the daemon sends it ("Moon").
    public let badgeNames: [String: String]
    /// Each activity's name as a sentence begins with it ("Trail run", "越野跑").
    public let activityNames: [Activity: String]
    /// Each upload target's name by the upload service's name for it (`strava`, `webdav`).
    public let targetNames: [String: String]
    public let wording: any Wording
    public let cueWords: CueWords

    public init(language: Language, templates: [PhraseKey: String], badgeNames: [String: String],
                activityNames: [Activity: String], targetNames: [String: String], wording: any Wording, cueWords: CueWords) {
        self.language = language
        self.templates = templates
        self.badgeNames = badgeNames
        self.activityNames = activityNames
        self.targetNames = targetNames
        self.wording = wording
        self.cueWords = cueWords
    }

    /// The table of a language.
    public static func of(_ language: Language) -> PhraseTable {
        switch language {
        case .english: english
        case .chinese: mandarin
        }
    }

    /// The sentence for `key` with its slots filled. A slot without a value
    /// is left empty rather than read out as "{name}".
    public func say(_ key: PhraseKey, _ values: [String: String] = [:]) -> String {
        var text = templates[key] ?? ""
        while let open = text.firstIndex(of: "{"), let close = text[open...].firstIndex(of: "}") {
            let name = String(text[text.index(after: open)..<close])
            text.replaceSubrange(open...close, with: values[name] ?? "")
        }
        return text
    }

    /// A badge's name in this language (the daemon's name when unknown).
    public func badge(_ name: String) -> String { badgeNames[name] ?? name }

    /// An upload target's name in this language (the service's name for one this announcer does not know).
    public func target(_ name: String) -> String { targetNames[name] ?? name }

    /// An activity's name in this language (a run's for one this announcer does not know).
    public func activity(_ name: String?) -> String {
        activityNames[name.flatMap(Activity.init(rawValue:)) ?? .run] ?? ""
    }
}
