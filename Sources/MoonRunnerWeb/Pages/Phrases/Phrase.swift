import MoonRunnerAnnounceCore
import MoonRunnerCore
import MoonRunnerExport

/// Everything the pages say, by meaning; each language is a table of these
/// (`English.swift`, `Chinese.swift`), and a test checks both have them all.
public enum Phrase: String, Sendable, CaseIterable {
    // Navigation and layout
    case navLive, navHistory, navCourses, navWorkouts, navBadges, navSettings, appName
    // States
    case stateIdle, stateRecording, statePaused, stateAutoPaused, stateStopped
    // Live page
    case liveTitle, distance, elapsed, moving, pace, averagePace, steps, cadence, climb, descent, gps, calories
    case speed, averageSpeed, climbRate, splitSpeed
    case gradeBest, gradeBetter, gradeAverage, gradeBad, gradeNone
    case linkLost, daemonDown, live
    case course, progress, toGo, eta, offCourse, offCourseBack, onCourse, courseFinished, notOnCourseYet
    case home, destination, arrived, nextBadge, toGoShort, battery, batteryCharging
    case heartRate, hrZone, hrSearching, hrLost, hrConnected, hrAverage, hrMaximum, hrZoneTime, trainingLoad
    case start, activity, run, walk, trailRun, hike, ride, followCourse, noCourse, headFor, headForHint
    case pause, resume, lap, stop, stopConfirm, stopReally, cancel
    case voice, voiceOn, voiceOff, voiceMuted, laps
    // History
    case historyTitle, noSessions, date, moved, badge, older, newer, weeklyTotals, monthlyTotals, week, month, sessionsCount
    case weeksStart, timeZoneNote, interrupted, recordingNow
    // Session page
    case sessionTitle, map, charts, splits, splitPace, splitTime, splitNumber, elevationChange, lapNumber, lapTime
    case maxSpeed, bestPace, elevationSource, barometric, terrainModel, gpsAltitude, badgesEarned, courseFollowed, finished, notFinished
    case downloads, delete, deleteConfirm, deleteReally, points, mapLegend, tilesUnavailable
    // Courses
    case coursesTitle, noCourses, coursePoints, length, added, upload, uploadHint, file, name, follow, courseDeleted, courseAdded
    case nextCue, cues, cuesFound, cuesFromFile, noCues, cueOffCourse
    // Workouts
    case workout, target, now, stepLeft, inTarget, roundOf, speedUp, easeOff, tooLow, tooHigh, onTarget, runWorkout, noWorkout
    case workoutsTitle, noWorkouts, workoutText, workoutTextHint, workoutAdded, workoutDeleted, notAWorkout
    case intensityWarmup, intensityActive, intensityInterval, intensityRest, intensityRecovery, intensityCooldown
    case uploadTooLarge, notACourse, brokenUpload, noFile
    // Badges
    case badgesTitle, tier, tierEarned, tierSilver, tierGold, notEarned, earnedBy, best, silverNeeds, goldNeeds
    // Settings
    case settingsTitle, language, units, metric, imperial, save, thisPhone, paired, saved
    // Pairing
    case pairTitle, pairIntro, pairCode, pairName, pairButton, pairWrong, pairWait, pairDone, pairAlready, pairNeeded
    // Errors
    case errorTitle, notFound, notFoundSession, daemonDownTitle, daemonDownBody, retry, forbidden, forbiddenCSRF
    case refused, tooManyRequests, back, badRequest
    // Uploads
    case uploadsTitle, uploadsIntro, uploadConnected, uploadNotConnected, uploadReconnect, uploadDisabled, uploadConnect, uploadClientID, uploadClientSecret, uploadAthleteID, uploadAPIKey, uploadUser
    case uploadPassword, uploadSecretSet, uploadRetry, uploadAgain, uploadOpen, uploadNone, uploadServiceDown, uploadNetworkWaits, uploadQueued, uploadSending, uploadProcessing, uploadDone
    case uploadFailed, uploadDeleted, uploadEmpty, uploadHeld, uploadPrivacyOn, uploadGrantFailed, uploadSetupHint, uploadsLink
}

/// One language's words: the phrase table, the badge names and the chart labels.
public struct Phrases: Sendable {
    public let language: Language
    let table: [Phrase: String]
    /// By the badge's English name as the daemon sends it ("Moon").
    let badgeNames: [String: String]
    public let charts: ChartLabels

    public subscript(_ p: Phrase) -> String { table[p] ?? p.rawValue }

    /// A phrase with `{name}` slots filled.
    public func format(_ p: Phrase, _ values: [String: String]) -> String {
        var text = self[p]
        for (k, v) in values { text = text.replacingOccurrences(of: "{\(k)}", with: v) }
        return text
    }

    /// `phrases` by their names, as a page's model hands them to its template (`{{p.distance}}`).
    public func named(_ phrases: [Phrase]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: phrases.map { ($0.rawValue, self[$0]) })
    }

    public func badgeName(_ english: String) -> String { badgeNames[english] ?? english }

    public static func of(_ language: Language) -> Phrases {
        switch language {
        case .english: .english
        case .chinese: .chinese
        }
    }

    public func stateName(_ state: SessionState) -> String {
        switch state {
        case .idle: self[.stateIdle]
        case .recording: self[.stateRecording]
        case .paused: self[.statePaused]
        case .autoPaused: self[.stateAutoPaused]
        case .stopped: self[.stateStopped]
        }
    }

    public func gradeName(_ grade: SignalGrade) -> String {
        switch grade {
        case .best: self[.gradeBest]
        case .better: self[.gradeBetter]
        case .average: self[.gradeAverage]
        case .bad: self[.gradeBad]
        case .none: self[.gradeNone]
        }
    }

    /// Where an altitude came from, in a word of the phone's language.
    public func sourceName(_ source: AltitudeSource) -> String {
        switch source {
        case .barometric: self[.barometric]
        case .dem: self[.terrainModel]
        case .gps: self[.gpsAltitude]
        }
    }

    /// One of the 8 compass points, in the announcer's words ("west", "西").
    public func direction(_ bearing: Double) -> String {
        PhraseTable.of(language).wording.direction(bearing)
    }

    /// An activity's name ("–" for none, or one this web app does not know).
    public func activityName(_ raw: String?) -> String {
        guard let activity = raw.flatMap(Activity.init(rawValue:)) else { return "–" }
        return self[Self.names[activity] ?? .run]
    }

    /// Each activity's phrase, in the start control's order.
    static let names: [Activity: Phrase] = [.run: .run, .trailRun: .trailRun, .walk: .walk, .hike: .hike, .ride: .ride]
}
