import MoonRunnerCore

extension Language {
    /// The language as `--language` and announce.yaml's `language:` name it:
    /// ISO 639 codes, `cmn` for Mandarin (the spoken language, as espeak-ng names it).
    public var announcerName: String {
        switch self {
        case .english: "en"
        case .chinese: "cmn"
        }
    }

    /// The language `--language` or `language:` names; nil for one the announcer does not speak.
    public init?(announcerName: String) {
        self.init(named: announcerName, by: \.announcerName)
    }

    /// The espeak-ng voice. Mandarin is `cmn-latn-pinyin`: espeak-ng 1.51's
    /// plain `cmn` turns characters into pinyin and then reads that as English.
    public var voice: String {
        switch self {
        case .english: "en-gb"
        case .chinese: "cmn-latn-pinyin"
        }
    }
}
