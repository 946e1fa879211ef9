import Foundation
import MoonRunnerCore
import Testing

/// The house formatter must print what `String(format:)` printed before it
/// (the tools link no full Foundation, and so no ICU): the exports, the CLI
/// and the announcer's texts are compared byte for byte by their tests.
@Suite("printf numbers without Foundation")
struct PrintfNumbersTests {
    // Ties (0.125, 2.675 is 2.67499… in binary), negatives rounding to -0, huge values past the stack buffer, non-finite.
    static let values: [Double] = [0, -0.0, 0.5, 1.5, 2.5, 0.125, 2.675, -0.004, -1.005, 3.14159, 1e-7, 123456.789,
                                   -98765.4321, 1e20, 1e300, -1e300, .infinity, -.infinity, .nan, 51.500729, -0.124600]

    @Test("fixed(n) is %.nf and fixed(n, width:) is %w.nf, for ties, -0, huge and non-finite values", arguments: 0...6)
    func fixed(decimals: Int) {
        for v in Self.values {
            #expect(v.fixed(decimals) == String(format: "%.\(decimals)f", v), "\(v)")
            #expect(v.fixed(decimals, width: 8) == String(format: "%8.\(decimals)f", v), "\(v)")
        }
    }

    @Test("zeroPadded(w) is %0wd, a minus sign counting in the width")
    func padded() {
        for n in [0, 7, 42, 123, -5, -42, Int.max, Int.min] {
            for w in [0, 2, 4] {
                #expect(n.zeroPadded(w) == String(format: "%0\(w)ld", n), "\(n) in \(w)")
            }
        }
        #expect(Int32(9).zeroPadded(2) == "09")
    }

    @Test("hex(width:) is %0wx and %0wX")
    func hex() {
        for n: UInt16 in [0, 0xA, 0xAB, 0x1F2E, 0xFFFF] {
            #expect(n.hex(width: 4, uppercase: true) == String(format: "%04X", n))
            #expect(n.hex(width: 2) == String(format: "%02x", n))
        }
        #expect(UInt8(0x7F).hex(width: 2) == "7f")
    }

    @Test("the trims remove what Foundation's .whitespaces, .whitespacesAndNewlines and a CharacterSet remove")
    func trims() {
        let texts = ["", "  ", " a b ", "\t x\t", "\r\n x \r\n", "\u{00A0}x\u{2003}", "\u{2028}x\u{0085}", "x\n\u{000B}",
                     "\"'quoted'\"", "é ", " 中文\u{3000}"]
        let quotes = CharacterSet(charactersIn: " \t\"'")
        for t in texts {
            #expect(t.trimmingSpacesAndNewlines() == t.trimmingCharacters(in: .whitespacesAndNewlines), "\(t.debugDescription)")
            #expect(t.trimmingSpacesAndTabs() == t.trimmingCharacters(in: .whitespaces), "\(t.debugDescription)")
            #expect(t.trimmingScalars(where: { quotes.contains($0) }) == t.trimmingCharacters(in: quotes))
        }
    }
}

@Suite("Climb and descent as the CLI and the phone show them")
struct ClimbFormattingTests {
    @Test("a climb has a sign only when there is one: +12 m, 0 m; a flat session is 0 m, not +0 m / -0 m")
    func climb() {
        #expect(Formatting.climb(12.4) == "+12 m" && Formatting.climb(0.4) == "0 m" && Formatting.climb(.nan) == "0 m")
        #expect(Formatting.climb(30.48, .imperial) == "+100 ft")
        #expect(Formatting.elevation(gain: 12.4, loss: 8.2) == "+12 m / -8 m")
        #expect(Formatting.elevation(gain: 0.2, loss: 0.4) == "0 m")
        #expect(Formatting.elevation(gain: 3, loss: 0) == "+3 m / 0 m")
    }

    @Test("a short distance ahead to the nearest 10 m (yd), a longer one as a distance")
    func shortDistance() {
        #expect(Formatting.shortDistance(96) == "100 m" && Formatting.shortDistance(4) == "0 m")
        #expect(Formatting.shortDistance(1500) == "1.50 km" && Formatting.shortDistance(100, .imperial) == "110 yd")
    }
}
