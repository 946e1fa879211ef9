/// UTC calendar fields from UNIX time, without Foundation's formatters (a
/// DateFormatter call per track point costs more than the rest of a GPX).
public struct UTCTime: Equatable {
    var year: Int64
    var month: Int64
    var day: Int64
    var hour: Int64
    var minute: Int64
    var second: Int64
    var millisecond: Int64

    /// Fields of UNIX time `t`, rounded to the millisecond.
    init(_ t: Double) {
        let ms = Int64((t * 1000).rounded())
        let (secs, milli) = UTCTime.floorDiv(ms, 1000)
        let (days, secondOfDay) = UTCTime.floorDiv(secs, 86_400)
        (year, month, day) = UTCTime.civil(fromDays: days)
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
        millisecond = milli
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a >= 0 ? a / b : (a - b + 1) / b
        return (q, a - q * b)
    }

    /// Proleptic Gregorian date of a day count from 1970-01-01 (the
    /// era/day-of-era method: 400-year eras of 146 097 days, years starting
    /// in March so that the leap day falls last).
    public static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}

extension OutputBuffer {
    /// ISO 8601 UTC, `2024-05-01T07:30:05Z`, with `.123` milliseconds only when not whole.
    mutating func write(isoTime t: Double) {
        guard t.isFinite else {
            write("1970-01-01T00:00:00Z")
            return
        }
        let u = UTCTime(t)
        writeDigits(UInt64(max(0, u.year)), width: 4)
        write(byte: UInt8(ascii: "-"))
        writeDigits(UInt64(u.month), width: 2)
        write(byte: UInt8(ascii: "-"))
        writeDigits(UInt64(u.day), width: 2)
        write(byte: UInt8(ascii: "T"))
        writeDigits(UInt64(u.hour), width: 2)
        write(byte: UInt8(ascii: ":"))
        writeDigits(UInt64(u.minute), width: 2)
        write(byte: UInt8(ascii: ":"))
        writeDigits(UInt64(u.second), width: 2)
        if u.millisecond != 0 {
            write(byte: UInt8(ascii: "."))
            writeDigits(UInt64(u.millisecond), width: 3)
        }
        write(byte: UInt8(ascii: "Z"))
    }
}

/// ISO 8601 UTC text of a UNIX time.
func isoTime(_ t: Double) -> String {
    var b = OutputBuffer(capacity: 24)
    b.write(isoTime: t)
    return String(decoding: b.bytes, as: UTF8.self)
}
