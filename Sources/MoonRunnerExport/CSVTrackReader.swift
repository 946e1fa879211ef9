import FoundationEssentials
import MoonRunnerCore

/// Reads back what `CSVWriter` writes: the track points (time, position,
/// elevation, speed, the session's distance, the stretches, the heart rate)
/// and the cadence at each point. The web app draws a session's map and charts from the
/// daemon's CSV export through it, so that it needs no request of its own
/// and draws from exactly the points every export holds.
public enum CSVTrackReader {
    public struct Track: Sendable, Equatable {
        public var points: [TrackPoint]
        /// Steps per minute at each point; empty when the session has no step data.
        public var cadence: [Double]

        public init(points: [TrackPoint], cadence: [Double]) {
            self.points = points
            self.cadence = cadence
        }

        /// The cadence as per-second step samples, the shape `ExportSession`
        /// takes (one per point, so that each point reads its own cadence back).
        public var stepSeconds: [StepSecondSample] {
            zip(points, cadence).map { p, c in
                StepSecondSample(second: Int64(p.time.rounded(.down)), steps: 0, cadence: c)
            }
        }
    }

    public struct Failure: Error, Equatable, CustomStringConvertible, Sendable {
        public var line: Int
        public var reason: String
        public var description: String { "CSV track, line \(line): \(reason)" }
    }

    /// Parses the whole file; O(n) with no per-field string.
    public static func read(_ data: some Collection<UInt8>) throws(Failure) -> Track {
        let bytes = Array(data)
        var lineNumber = 0
        var start = 0
        var track = Track(points: [], cadence: [])
        track.points.reserveCapacity(bytes.count / 70)
        var hasCadence: Bool?
        var lastSegment = 0
        var fields: [Range<Int>] = []
        fields.reserveCapacity(10)
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            lineNumber += 1
            defer { start = end + 1 }
            if lineNumber == 1 {
                guard bytes[start..<end].elementsEqual(CSVWriter.header.utf8) else {
                    throw Failure(line: 1, reason: "the header is not \(CSVWriter.header)")
                }
                continue
            }
            guard end > start else { continue }
            fields.removeAll(keepingCapacity: true)
            var f = start
            for i in start...end where i == end || bytes[i] == UInt8(ascii: ",") {
                fields.append(f..<i)
                f = i + 1
            }
            guard fields.count == 10 else {
                throw Failure(line: lineNumber, reason: "\(fields.count) fields, 10 expected")
            }
            guard let time = isoTime(bytes[fields[0]]) else {
                throw Failure(line: lineNumber, reason: "the time is not ISO 8601 UTC")
            }
            guard let lat = number(bytes[fields[1]]), let lon = number(bytes[fields[2]]),
                  let distance = number(bytes[fields[5]]), let segment = number(bytes[fields[7]]) else {
                throw Failure(line: lineNumber, reason: "lat, lon, distance_m and segment must be numbers")
            }
            let altitude = fields[3].isEmpty ? Double.nan : number(bytes[fields[3]]) ?? .nan
            let speed = fields[4].isEmpty ? Double.nan : number(bytes[fields[4]]) ?? .nan
            let heartRate = fields[8].isEmpty ? Double.nan : number(bytes[fields[8]]) ?? .nan
            let cadenceGiven = !fields[6].isEmpty
            if hasCadence == nil { hasCadence = cadenceGiven }
            let newSegment = !track.points.isEmpty && Int(segment) != lastSegment
            lastSegment = Int(segment)
            track.points.append(TrackPoint(time: time, fixTime: time, latitude: lat, longitude: lon, altitude: altitude,
                                           speed: speed, course: .nan, eph: .nan, newSegment: newSegment,
                                           distance: distance, heartRate: heartRate))
            if hasCadence == true { track.cadence.append(cadenceGiven ? number(bytes[fields[6]]) ?? 0 : 0) }
        }
        return track
    }

    /// A decimal number as CSVWriter writes them: optional sign, digits, optional fraction.
    static func number(_ s: ArraySlice<UInt8>) -> Double? {
        var i = s.startIndex
        guard i < s.endIndex else { return nil }
        var negative = false
        if s[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var whole: UInt64 = 0, fraction: UInt64 = 0, scale: Double = 1, digits = 0
        var inFraction = false
        while i < s.endIndex {
            let b = s[i]
            if b == UInt8(ascii: "."), !inFraction {
                inFraction = true
            } else if b >= 0x30 && b <= 0x39, digits < 18 {
                if inFraction {
                    fraction = fraction * 10 + UInt64(b - 0x30)
                    scale *= 10
                } else {
                    whole = whole * 10 + UInt64(b - 0x30)
                }
                digits += 1
            } else {
                return nil
            }
            i += 1
        }
        guard digits > 0 else { return nil }
        let value = Double(whole) + Double(fraction) / scale
        return negative ? -value : value
    }

    /// `2024-05-01T07:30:05Z` or `2024-05-01T07:30:05.123Z` as UNIX seconds.
    static func isoTime(_ s: ArraySlice<UInt8>) -> Double? {
        let b = Array(s)
        guard b.count == 20 || b.count == 24, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              b[b.count - 1] == UInt8(ascii: "Z") else { return nil }
        func digits(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        guard let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10), let hour = digits(11..<13),
              let minute = digits(14..<16), let second = digits(17..<19), (1...12).contains(month) else { return nil }
        var millis = 0
        if b.count == 24 {
            guard b[19] == UInt8(ascii: "."), let m = digits(20..<23) else { return nil }
            millis = m
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second) + Double(millis) / 1000
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
    /// algorithm, the inverse of `UTCTime`'s).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
