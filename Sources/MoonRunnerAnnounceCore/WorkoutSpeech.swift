import MoonRunnerCore

/// What is said for the workout events, from the step the event carries:
/// the step and its target as it begins ("Interval 2 of 6: 800 metres at
/// 3 50 to 4 minutes per kilometre."; a break as "Rest, 90 seconds."), the
/// alerts in the measure's own words ("Speed up.", "Ease off.", "Back on
/// pace."; the heart rate's and cadence's), and the end with its summary.
/// Pure: a table's templates and its `Wording` make each language's sentences.
struct WorkoutSpeech {
    let phrases: PhraseTable
    let units: UnitSystem

    private var words: any Wording { phrases.wording }

    func sentence(_ kind: SessionEventKind, _ info: WorkoutEventInfo) -> String? {
        let measure = info.measure ?? .pace
        switch kind {
        case .workoutStep: return begins(info.step)
        case .targetLow: return phrases.say(measure == .pace ? .speedUp : measure == .hr ? .heartRateLow : .cadenceLow)
        case .targetHigh: return phrases.say(measure == .pace ? .easeOff : measure == .hr ? .heartRateHigh : .cadenceHigh)
        case .targetOK: return phrases.say(measure == .pace ? .backOnPace : measure == .hr ? .heartRateBack : .cadenceBack)
        case .workoutDone: return summary(info)
        default: return nil
        }
    }

    /// The end: the steps done (of how many, when the lap key cut some short),
    /// the share of the efforts' time on target, and the efforts' average
    /// pace, each when there is one to say.
    func summary(_ info: WorkoutEventInfo) -> String {
        let steps = words.count(info.steps)
        guard let tally = info.summary else { return phrases.say(.workoutDone, ["steps": steps]) }
        var said = [tally.skipped == 0 ? phrases.say(.workoutDone, ["steps": steps])
                        : phrases.say(.workoutDonePartly, ["done": words.count(tally.completed), "steps": steps])]
        if let share = tally.inTargetShare {
            said.append(phrases.say(.workoutOnTarget, ["percent": words.count(Int((share * 100).rounded()))]))
        }
        if let speed = tally.activeSpeed, speed > 0 {
            said.append(phrases.say(.workoutEffortPace, ["pace": words.pace(units.metresPerUnit / speed),
                                                         "unit": words.unitName(units)]))
        }
        return said.joined(separator: words.sentenceBreak)
    }

    /// A step as it begins: its name (or kind) and round, how it ends, its target.
    func begins(_ step: PlannedStep) -> String {
        let kind: PhraseKey = switch step.intensity {
        case .warmup: .intensityWarmup
        case .active: .intensityActive
        case .interval: .intensityInterval
        case .rest: .intensityRest
        case .recovery: .intensityRecovery
        case .cooldown: .intensityCooldown
        }
        var name = step.name.map { $0.isEmpty ? phrases.say(kind) : $0 } ?? phrases.say(kind)
        if step.rounds > 1 {
            name = phrases.say(.stepOfRounds, ["step": name, "round": words.count(step.round),
                                               "rounds": words.count(step.rounds)])
        }
        let end = ending(step.end)
        if step.intensity.isBreak { return phrases.say(.workoutBreak, ["step": name, "end": end]) }
        guard let target = step.target.map(band) else { return phrases.say(.workoutStep, ["step": name, "end": end]) }
        return phrases.say(.workoutStepTarget, ["step": name, "end": end, "target": target])
    }

    private func ending(_ end: StepEnd) -> String {
        switch end {
        case let .time(s): words.duration(s)
        case let .distance(m): words.nearDistance(m, units)
        case .lap: phrases.say(.untilLap)
        case let .heartRateAbove(v): phrases.say(.untilHeartRateAbove, ["bpm": words.count(Int(v.rounded()))])
        case let .heartRateBelow(v): phrases.say(.untilHeartRateBelow, ["bpm": words.count(Int(v.rounded()))])
        }
    }

    /// A band as said: a pace from the fast end to the slow, bpm, steps a minute.
    private func band(_ t: TargetBand) -> String {
        switch t.measure {
        case .pace:
            let perUnit = units.metresPerUnit
            return phrases.say(.paceBand, ["fast": words.pace(perUnit / t.high), "slow": words.pace(perUnit / t.low),
                                           "unit": words.unitName(units)])
        case .hr:
            if let zone = t.zone { return phrases.say(.heartRateZoneTarget, ["zone": words.count(zone)]) }
            return phrases.say(.heartRateBand, ["low": words.count(Int(t.low.rounded())),
                                                "high": words.count(Int(t.high.rounded()))])
        case .cadence:
            return phrases.say(.cadenceBand, ["low": words.count(Int(t.low.rounded())),
                                              "high": words.count(Int(t.high.rounded()))])
        }
    }
}
