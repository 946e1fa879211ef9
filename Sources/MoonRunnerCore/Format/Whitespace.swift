// Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)` and
// `(in: .whitespaces)` without Foundation (the tools that do not need ICU
// import no full Foundation). Same sets, same unit: Unicode scalars, so a
// "\r\n" is two scalars trimmed, as Foundation does.

extension Unicode.Scalar {
    /// In `CharacterSet.whitespaces`: space separators (Zs) and the tab.
    public var isSpaceOrTab: Bool {
        self == "\t" || properties.generalCategory == .spaceSeparator
    }

    /// In `CharacterSet.whitespacesAndNewlines`: the above, U+000A–U+000D, U+0085, U+2028, U+2029.
    public var isSpaceOrNewline: Bool {
        isSpaceOrTab || (0x0A...0x0D).contains(value) || value == 0x85 || value == 0x2028 || value == 0x2029
    }
}

extension StringProtocol {
    /// Without leading and trailing `isSpaceOrNewline` scalars, as `trimmingCharacters(in: .whitespacesAndNewlines)`.
    public func trimmingSpacesAndNewlines() -> String {
        trimmingScalars(where: \.isSpaceOrNewline)
    }

    /// Without leading and trailing spaces and tabs, as `trimmingCharacters(in: .whitespaces)`.
    public func trimmingSpacesAndTabs() -> String {
        trimmingScalars(where: \.isSpaceOrTab)
    }

    /// Without the leading and trailing scalars `blank` picks, as `trimmingCharacters(in: CharacterSet(...))`.
    public func trimmingScalars(where blank: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !blank($0) }),
              let last = scalars.lastIndex(where: { !blank($0) }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
