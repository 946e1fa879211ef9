import MoonRunnerCore
import MoonRunnerProtocol

/// `STATUS.workout` on the run screen: the step (its name or kind, its round,
/// n of N), its target band with where the wearer is in it, and what is
/// left of the step; each a figure the live stream updates. Hidden without a
/// workout. Pure: the STATUS and the phone's words in.
public struct WorkoutView: Sendable {
    public let step: Figure
    public let target: Figure
    /// The measure now, and the marker's place in the band (its value: 0 at the
    /// low end, 1 at the high, held to -0.25...1.25 so that it stays on the bar).
    public let now: Figure
    public let marker: Figure
    public let left: Figure
    public let alert: Figure
    public let shown: Bool
    /// The three under the bar: stored, as the template reads only stored properties.
    public let gridFigures: [Figure]

    /// Every figure the stream updates.
    public var figures: [Figure] { [step, target, now, marker, left, alert] }

    public init(status: JSONValue, phrases p: Phrases, units: UnitSystem) {
        let reply = status.at(path: "workout").flatMap { $0 == .null ? nil : try? ReplyEncoder.decode(WorkoutStatusReply.self, from: $0.serialized) }
        shown = reply != nil
        step = Figure(key: "workout.step.index", label: p[.workout],
                      text: reply.map { Self.stepText($0.step, of: $0.steps, p) } ?? "",
                      value: reply.map { String($0.step.index) } ?? "")
        let band = reply?.step.target
        target = Figure(key: "workout.step.target", label: p[.target], text: band.map { Self.bandText($0, units) } ?? "–",
                        value: band?.measure.rawValue ?? "")
        let value = reply?.value
        now = Figure(key: "workout.value", label: p[.now],
                     text: zip2(band, value).map { Self.measureText($0.0.measure, $0.1, units) } ?? "–",
                     value: value.map(FigureText.numberText) ?? "")
        marker = Figure(key: "workout.position", label: p[.now], text: "",
                        value: reply?.position.map { FigureText.numberText(max(-0.25, min(1.25, $0))) } ?? "")
        left = Figure(key: "workout.remaining", label: p[.stepLeft],
                      text: reply.map { Self.leftText($0, units) } ?? "", value: reply?.remaining.map(FigureText.numberText) ?? "")
        let alertText: String = switch reply?.alert {
        case "target_low": band?.measure == .pace ? p[.speedUp] : p[.tooLow]
        case "target_high": band?.measure == .pace ? p[.easeOff] : p[.tooHigh]
        default: band == nil ? "" : p[.onTarget]
        }
        alert = Figure(key: "workout.alert", label: p[.target], text: alertText, value: reply?.alert ?? "")
        gridFigures = [target, now, left]
    }

    /// "Interval 2 of 6 · 3/14".
    static func stepText(_ step: PlannedStep, of count: Int, _ p: Phrases) -> String {
        let kind: Phrase = switch step.intensity {
        case .warmup: .intensityWarmup
        case .active: .intensityActive
        case .interval: .intensityInterval
        case .rest: .intensityRest
        case .recovery: .intensityRecovery
        case .cooldown: .intensityCooldown
        }
        let name = (step.name?.isEmpty == false ? step.name : nil) ?? p[kind]
        let round = step.rounds > 1 ? " " + p.format(.roundOf, ["n": String(step.round), "of": String(step.rounds)]) : ""
        return "\(name)\(round) · \(step.index + 1)/\(count)"
    }

    /// "3:50–4:00 min/km", "140–150 bpm", "Z3".
    static func bandText(_ t: TargetBand, _ units: UnitSystem) -> String {
        switch t.measure {
        case .pace:
            let fast = Formatting.pace(speed: t.high, units), slow = Formatting.pace(speed: t.low, units)
            return "\(fast.split(separator: " ").first ?? "")–\(slow)"
        case .hr: return t.zone.map { "Z\($0) · \(Int(t.low.rounded()))–\(Int(t.high.rounded())) bpm" }
            ?? "\(Int(t.low.rounded()))–\(Int(t.high.rounded())) bpm"
        case .cadence: return "\(Int(t.low.rounded()))–\(Int(t.high.rounded())) spm"
        }
    }

    static func measureText(_ m: TargetMeasure, _ v: Double, _ units: UnitSystem) -> String {
        switch m {
        case .pace: Formatting.pace(speed: v, units)
        case .hr: "\(Int(v.rounded())) bpm"
        case .cadence: "\(Int(v.rounded())) spm"
        }
    }

    /// What is left: "390 m", "0:45", or how the step ends.
    static func leftText(_ w: WorkoutStatusReply, _ units: UnitSystem) -> String {
        guard let left = w.remaining else { return w.step.end.kind == "lap" ? "lap ⏎" : "♥" }
        if case .distance = w.step.end { return Formatting.shortDistance(left, units) }
        let s = Int(left.rounded(.up))
        return "\(s / 60):\((s % 60).zeroPadded(2))"
    }
}

private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
