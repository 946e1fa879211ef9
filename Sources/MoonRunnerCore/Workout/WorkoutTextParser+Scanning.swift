/// The text form's targets and tokens: numbers, words, clocks, names and
/// the errors that say where they went wrong.
extension WorkoutTextParser {
    /// Half-widths of the band around a single value (see `WorkoutText`):
    /// seconds per km and per mile, bpm, % of the maximum, steps/min, km/h.
    static let paceSpreadKm = 5.0, paceSpreadMile = 8.0, bpmSpread = 5.0, percentSpread = 3.0,
               cadenceSpread = 5.0, speedSpreadKmh = 0.5

    /// A pace target from its first clock's minutes on: `m:ss[-m:ss]/km` or `/mi`.
    mutating func pace(firstMinutes: Double, at: Int) throws(WorkoutTextError) -> StepTarget {
        let a = try clock(minutes: firstMinutes, at: at)
        skipSpaces()
        var b: Double?
        if take("-") {
            skipSpaces()
            let bAt = i
            guard let m = number(), peek == ":" else { throw error("expected a pace such as 4:00 after \"-\"", at: bAt) }
            b = try clock(minutes: m, at: bAt)
            skipSpaces()
        }
        guard take("/") else { throw error("expected /km or /mi after the pace, found \(found)") }
        let unitAt = i
        let metres: Double
        switch letters() {
        case "km": metres = 1000
        case "mi": metres = 1609.344
        default: throw error("expected km or mi after \"/\"", at: unitAt)
        }
        let spread = metres == 1000 ? Self.paceSpreadKm : Self.paceSpreadMile
        let fast = b.map { min(a, $0) } ?? a - spread, slow = b.map { max(a, $0) } ?? a + spread
        guard fast > 0 else { throw error("a pace of \(fast.shortText) s per unit cannot be run", at: at) }
        return .speed(low: metres / slow, high: metres / fast)
    }

    /// `m:ss` after its minutes: seconds.
    private mutating func clock(minutes: Double, at: Int) throws(WorkoutTextError) -> Double {
        guard minutes == minutes.rounded(.down), take(":") else { throw error("expected a pace such as 4:05", at: at) }
        let start = i
        guard let ss = digits(), i - start == 2, ss < 60 else { throw error("expected two digits of seconds (00–59)", at: start) }
        return minutes * 60 + Double(ss)
    }

    /// `a[-b]` and its unit: bpm, % (of the maximum heart rate), spm or km/h.
    mutating func rangeTarget(_ a: Double, at: Int) throws(WorkoutTextError) -> StepTarget {
        skipSpaces()
        var b: Double?
        if take("-") {
            skipSpaces()
            guard let v = number() else { throw error("expected a number after \"-\", found \(found)") }
            b = v
            skipSpaces()
        }
        let unitAt = i
        if take("%") {
            return .heartRate(low: .percentOfMax(b.map { _ in a } ?? a - Self.percentSpread),
                              high: .percentOfMax(b ?? a + Self.percentSpread))
        }
        switch letters() {
        case "bpm":
            return .heartRate(low: .bpm(b.map { _ in a } ?? a - Self.bpmSpread), high: .bpm(b ?? a + Self.bpmSpread))
        case "spm":
            return .cadence(low: b.map { _ in a } ?? a - Self.cadenceSpread, high: b ?? a + Self.cadenceSpread)
        case "km" where take("/") && letters() == "h":
            let low = b.map { _ in a } ?? a - Self.speedSpreadKmh, high = b ?? a + Self.speedSpreadKmh
            return .speed(low: low / 3.6, high: high / 3.6)
        default:
            throw error("expected bpm, %, spm or km/h after the number", at: unitAt)
        }
    }

    // MARK: Tokens

    var peek: Unicode.Scalar? { i < s.count ? s[i] : nil }

    mutating func take(_ c: Unicode.Scalar) -> Bool {
        guard peek == c else { return false }
        i += 1
        return true
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
    static func isSeparator(_ c: Unicode.Scalar) -> Bool { c == ";" || c == "," || c == "\n" || c == "\r" }
    static func isLetter(_ c: Unicode.Scalar) -> Bool { (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") }

    mutating func skipSpaces() {
        while let c = peek, c == " " || c == "\t" || c == "\u{00A0}" { i += 1 }
    }

    /// Skips spaces and separators; true when there was a separator.
    @discardableResult
    mutating func skipSeparators() -> Bool {
        var seen = false
        while let c = peek, c == " " || c == "\t" || c == "\u{00A0}" || Self.isSeparator(c) {
            seen = seen || Self.isSeparator(c)
            i += 1
        }
        return seen
    }

    /// A run of digits as a whole number (nil when none; at most 9 digits count).
    mutating func digits() -> Int? {
        let start = i
        var v = 0
        while let c = peek, Self.isDigit(c) {
            if i - start < 9 { v = v * 10 + Int(c.value - 48) }
            i += 1
        }
        return i > start ? v : nil
    }

    /// digits ["." digits]
    mutating func number() -> Double? {
        let start = i
        guard let whole = digits() else { return nil }
        guard peek == ".", i + 1 < s.count, Self.isDigit(s[i + 1]) else { return Double(whole) }
        i += 1
        _ = digits()
        return Double(String(String.UnicodeScalarView(s[start..<i]))) ?? Double(whole)
    }

    /// A run of ASCII letters, lower-cased; nil when none.
    mutating func letters() -> String? {
        let start = i
        while let c = peek, Self.isLetter(c) { i += 1 }
        guard i > start else { return nil }
        return String(String.UnicodeScalarView(s[start..<i])).lowercased()
    }

    /// "x" or "×" after a repeat's count (spaces allowed).
    mutating func matchRepeatSign() -> Bool {
        skipSpaces()
        return take("x") || take("X") || take("×")
    }

    /// A name in double quotes.
    mutating func quoted() throws(WorkoutTextError) -> String {
        let start = i
        _ = take("\"")
        let from = i
        while let c = peek, c != "\"", !Self.isSeparator(c) || c == "," || c == ";" { i += 1 }
        guard peek == "\"" else { throw error("the name has no closing quote", at: start) }
        let name = String(String.UnicodeScalarView(s[from..<i])).trimmingSpacesAndNewlines()
        i += 1
        guard !name.isEmpty else { throw error("an empty name", at: start) }
        return name
    }

    /// What stands at the cursor, for a message.
    var found: String {
        guard let c = peek else { return "the end of the text" }
        if c == "\n" || c == "\r" { return "the end of the line" }
        var end = i
        if Self.isLetter(c) || Self.isDigit(c) {
            while end < s.count, end - i < 12, Self.isLetter(s[end]) || Self.isDigit(s[end]) { end += 1 }
        } else {
            end = i + 1
        }
        return "\"\(String(String.UnicodeScalarView(s[i..<end])))\""
    }

    /// An error at `at` (default: the cursor), with its line and column.
    func error(_ message: String, at: Int? = nil) -> WorkoutTextError {
        let offset = min(at ?? i, s.count)
        var line = 1, column = 1
        for c in s[..<offset] {
            if c == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return WorkoutTextError(line: line, column: column, message)
    }
}

extension Double {
    /// A number as a person writes it: no ".0" on a whole one.
    var shortText: String {
        self == rounded() && abs(self) < 1e9 ? String(Int(self)) : String(self)
    }
}
