import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerSystem

/// Reads a GPS trace in gpsd's own JSON (one object per line, as
/// `gpspipe -w` prints it) into one fix per epoch, each with the instant it
/// counts at: the fix time, or the latest known time for reports without one.
public enum GPSTraceReader {
    public struct Entry: Sendable {
        public var fix: GPSFix
        /// Trace-clock instant of the fix (seconds).
        public var at: Double
    }

    public struct ReadError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    public static func read(path: String) throws -> [Entry] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ReadError(path: path, reason: "cannot read (\(fileErrorText(error)))")
        }
        return try parse(data, path: path)
    }

    public static func parse(_ data: Data, path: String = "<data>") throws -> [Entry] {
        var assembler = GPSEpochAssembler()
        var out: [Entry] = []
        var lastTime = -Double.infinity
        var objects = 0
        var lineNumber = 0
        let decoder = JSONDecoder()
        for lineBytes in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = lineBytes.drop(while: { $0 == 32 || $0 == 9 || $0 == 13 })
            guard trimmed.first == UInt8(ascii: "{") else { continue }
            guard let obj = try? decoder.decode(Report.self, from: Data(trimmed)) else {
                // gpspipe output can end in a torn line when it was killed; skip it.
                continue
            }
            objects += 1
            let time = obj.time.flatMap { GPSDTime.parse(Substring($0)) } ?? .nan
            if time.isFinite { lastTime = max(lastTime, time) }
            switch obj.class {
            case "TPV":
                let fix = GPSFix(time: time, mode: obj.mode ?? 0,
                                 latitude: obj.lat, longitude: obj.lon,
                                 altitude: obj.altMSL ?? obj.alt ?? .nan, eph: obj.eph,
                                 epv: obj.epv, speed: obj.speed, track: obj.track,
                                 climb: obj.climb)
                let at = time.isFinite ? time : lastTime
                for e in assembler.addTPV(fix, at: at) where e.at.isFinite {
                    out.append(Entry(fix: e.fix, at: e.at))
                }
            case "GST":
                if time.isFinite {
                    assembler.addGST(time: time, lat: obj.lat, lon: obj.lon, alt: obj.alt ?? .nan)
                }
            default:
                continue
            }
        }
        if let e = assembler.flush(), e.at.isFinite { out.append(Entry(fix: e.fix, at: e.at)) }
        if objects == 0 && !data.isEmpty {
            throw ReadError(path: path, reason: "no gpsd JSON objects found (expected `gpspipe -w` output)")
        }
        return out
    }

    /// The members of a gpsd report that matter here. Each is read on its own
    /// and a member of the wrong type counts as absent (NaN), so one odd value
    /// does not cost the report (as a JSON object read member by member did).
    private struct Report: Decodable {
        var `class`: String?
        var time: String?
        var mode: Int?
        var lat = Double.nan, lon = Double.nan, eph = Double.nan, epv = Double.nan
        var speed = Double.nan, track = Double.nan, climb = Double.nan
        var alt: Double?, altMSL: Double?

        private enum Key: String, CodingKey {
            case `class`, time, mode, lat, lon, eph, epv, speed, track, climb, alt, altMSL
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            func number(_ k: Key) -> Double? { (try? c.decodeIfPresent(Double.self, forKey: k)) ?? nil }
            `class` = (try? c.decodeIfPresent(String.self, forKey: .class)) ?? nil
            time = (try? c.decodeIfPresent(String.self, forKey: .time)) ?? nil
            mode = (try? c.decodeIfPresent(Int.self, forKey: .mode)) ?? nil
            lat = number(.lat) ?? .nan
            lon = number(.lon) ?? .nan
            eph = number(.eph) ?? .nan
            epv = number(.epv) ?? .nan
            speed = number(.speed) ?? .nan
            track = number(.track) ?? .nan
            climb = number(.climb) ?? .nan
            alt = number(.alt)
            altMSL = number(.altMSL)
        }
    }
}
