/// A language MoonRunner speaks and writes: one type for the announcer's
/// voice and the web app's pages. Each names it as its own users do (the
/// announcer's `language: cmn`, the pages' `lang=zh` cookie), beside its words.
public enum Language: Sendable, Hashable, CaseIterable {
    /// British English.
    case english
    /// Mandarin Chinese: spoken Mandarin, written in simplified characters (简体中文).
    case chinese

    /// The language a surface calls `name` (`naming` is how it names each); nil for none of ours.
    public init?(named name: String, by naming: (Language) -> String) {
        guard let language = Self.allCases.first(where: { naming($0) == name }) else { return nil }
        self = language
    }
}
