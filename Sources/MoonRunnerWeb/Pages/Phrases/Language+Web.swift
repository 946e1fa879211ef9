import Foundation
import MoonRunnerCore

extension Language {
    /// The language as the pages name it: the `lang` cookie and the settings
    /// form's value (BCP 47: `en`, `zh`).
    public var tag: String {
        switch self {
        case .english: "en"
        case .chinese: "zh"
        }
    }

    /// The language a cookie or the settings form names; nil for one the pages are not written in.
    public init?(tag: String) {
        self.init(named: tag, by: \.tag)
    }

    /// The `lang` attribute of the pages.
    public var htmlTag: String { self == .english ? "en" : "zh-Hans" }

    /// The language a browser asks for first among ours (English when neither is asked for).
    public static func preferred(acceptLanguage header: String?) -> Language {
        guard let header else { return .english }
        var best: (Language, Double)?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let tag = parts.first, !tag.isEmpty else { continue }
            var q = 1.0
            for p in parts.dropFirst() where p.hasPrefix("q=") { q = Double(p.dropFirst(2)) ?? 0 }
            let language: Language? = tag.hasPrefix("zh") ? .chinese : tag.hasPrefix("en") ? .english : nil
            guard let language, q > (best?.1 ?? 0) else { continue }
            best = (language, q)
        }
        return best?.0 ?? .english
    }
}
