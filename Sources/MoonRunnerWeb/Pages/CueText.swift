import MoonRunnerAnnounceCore
import MoonRunnerCore

/// A course's cue in the phone's words: the announcer's own (one table per
/// language: "turn left", "左转"; "water", "饮水点"), as a label.
public enum CueText {
    /// "Turn left", "Bear right, then left", "Water", "左转".
    public static func label(_ kind: CueKind, then: [CueKind] = [], language: Language) -> String {
        let table = PhraseTable.of(language)
        let words = table.cueWords
        var text = words.turns[kind] ?? words.places[kind] ?? kind.rawValue
        for next in then { text = table.say(.turnThen, ["turn": text, "then": words.thenTurns[next] ?? next.rawValue]) }
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }

    /// The label with the cue's name: "Turn left onto Elm Street", "左转，进入榆树街", "Water: Fountain".
    public static func text(_ kind: CueKind, name: String?, then: [CueKind] = [], language: Language) -> String {
        let label = label(kind, then: then, language: language)
        guard let name, !name.isEmpty else { return label }
        if kind.isTurn { return language == .english ? "\(label) onto \(name)" : "\(label)，进入\(name)" }
        if kind == .generic { return name }
        return language == .english ? "\(label): \(name)" : "\(label)：\(name)"
    }

    /// An arrow for the cue: the direction of the turn, a mark for a place.
    public static func arrow(_ kind: CueKind) -> String {
        switch kind {
        case .left: "←"
        case .right: "→"
        case .slightLeft: "↖"
        case .slightRight: "↗"
        case .sharpLeft: "↙"
        case .sharpRight: "↘"
        case .uTurn: "↶"
        case .straight: "↑"
        case .water, .food, .firstAid: "✚"
        case .danger: "⚠"
        case .summit, .category4, .category3, .category2, .category1, .horsCategory: "▲"
        case .valley: "▼"
        case .sprint: "⚑"
        case .generic: "●"
        }
    }
}
