import MoonRunnerCore
import MoonRunnerProtocol

/// `STATUS.course.next_cue` on the run screen: an arrow, the words
/// ("Turn left onto Elm Street") and the distance to it, each a figure the
/// live stream updates; empty when there is none (off course, where along
/// not yet known, past the last cue).
public struct NextCueView: Sendable {
    public let arrow: Figure
    public let text: Figure
    public let distance: Figure
    public let shown: Bool

    public init(status: JSONValue, phrases p: Phrases, units: UnitSystem) {
        let kind = status.string(at: "course.next_cue.kind").flatMap(CueKind.init(rawValue:))
        let metres = status.number(at: "course.next_cue.distance_m")
        let then = (status.at(path: "course.next_cue.then").flatMap { v -> [CueKind]? in
            guard case let .array(items) = v else { return nil }
            return items.compactMap { item in
                if case let .string(s) = item { return CueKind(rawValue: s) }
                return nil
            }
        }) ?? []
        shown = kind != nil
        arrow = Figure(key: "course.next_cue.kind", label: p[.nextCue], text: kind.map(CueText.arrow) ?? "",
                       value: kind?.rawValue ?? "")
        text = Figure(key: "course.next_cue.name", label: p[.nextCue],
                      text: kind.map { CueText.text($0, name: status.string(at: "course.next_cue.name"), then: then,
                                                    language: p.language) } ?? "",
                      value: status.string(at: "course.next_cue.name") ?? "")
        distance = Figure(key: "course.next_cue.distance_m", label: p[.nextCue],
                          text: metres.map { Formatting.shortDistance($0, units) } ?? "",
                          value: metres.map(FigureText.numberText) ?? "")
    }
}
