/// Parses gpsd's ISO 8601 UTC times ("2024-05-14T06:30:01.000Z") without
/// Foundation formatters, which are slow and locale-sensitive.
public enum GPSDTime {
    /// UNIX seconds, or nil when the text is not such a time.
    public static func parse(_ text: Substring) -> Double? {
        let u = Array(text.utf8)
        guard u.count >= 20, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-"),
              u[10] == UInt8(ascii: "T"), u[13] == UInt8(ascii: ":"), u[16] == UInt8(ascii: ":") else { return nil }
        func num(_ a: Int, _ n: Int) -> Int? {
            var v = 0
            for i in a..<(a + n) {
                let d = Int(u[i]) - 48
                guard d >= 0 && d <= 9 else { return nil }
                v = v * 10 + d
            }
            return v
        }
        guard let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2),
              let mi = num(14, 2), let s = num(17, 2), (1...12).contains(mo), (1...31).contains(d),
              h < 24, mi < 60, s <= 60 else { return nil }
        var frac = 0.0
        var i = 19
        if i < u.count && u[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            while i < u.count, u[i] >= 48, u[i] <= 57 {
                frac += Double(u[i] - 48) * scale
                scale /= 10
                i += 1
            }
        }
        guard i < u.count, u[i] == UInt8(ascii: "Z") else { return nil }
        return Double(daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s) + frac
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
