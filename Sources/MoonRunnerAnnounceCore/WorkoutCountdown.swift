import MoonRunnerCore
import MoonRunnerProtocol

/// The step's countdown, from `STATUS.workout` each second: "200 metres
/// left." near the end of a distance effort, "30 seconds left." near the end
/// of a timed one, and a break's "10 seconds, get ready.". Each is said once
/// per step, when what is left first drops to its mark, and only in a step
/// at least twice as long as the mark (a 200 m mark in a 150 m step would
/// come before the step's own start is said out); a STATUS that finds it
/// already past half the mark (a reconnect) says nothing.
struct WorkoutCountdown: Sendable {
    static let distanceMark = 200.0
    static let timeMark = 30.0
    static let breakMark = 10.0

    private var step: Int?
    private var said = false

    mutating func update(_ w: WorkoutStatusReply?, phrases: PhraseTable, units: UnitSystem) -> String? {
        guard let w, let left = w.remaining, let whole = w.step.end.value else { return nil }
        if step != w.step.index {
            step = w.step.index
            said = false
        }
        let words = phrases.wording
        let (mark, text): (Double, String) = switch w.step.end {
        case .distance: (Self.distanceMark, phrases.say(.distanceLeft,
                                                        ["distance": words.nearDistance(Self.distanceMark, units)]))
        case .time where w.step.intensity.isBreak: (Self.breakMark, phrases.say(.getReady,
                                                                                 ["time": words.duration(Self.breakMark)]))
        case .time: (Self.timeMark, phrases.say(.timeLeft, ["time": words.duration(Self.timeMark)]))
        default: (0, "")
        }
        guard mark > 0, !said, whole >= 2 * mark, left <= mark else { return nil }
        said = true
        return left > mark / 2 ? text : nil
    }
}
