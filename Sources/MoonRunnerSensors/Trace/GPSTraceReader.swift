import Foundation
import MoonRunnerCore

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
            throw ReadError(path: path, reason: "cannot read (\(error.localizedDescription))")
        }
        return try parse(data, path: path)
    }

    public static func parse(_ data: Data, path: String = "<data>") throws -> [Entry] {
        var assembler = GPSEpochAssembler()
        var out: [Entry] = []
        var lastTime = -Double.infinity
        var objects = 0
        var lineNumber = 0
        for lineBytes in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = lineBytes.drop(while: { $0 == 32 || $0 == 9 || $0 == 13 })
            guard trimmed.first == UInt8(ascii: "{") else { continue }
            guard let obj = try? JSONSerialization.jsonObject(with: Data(trimmed)) as? [String: Any] else {
                // gpspipe output can end in a torn line when it was killed; skip it.
                continue
            }
            objects += 1
            let cls = obj["class"] as? String
            let time = (obj["time"] as? String).flatMap { GPSDTime.parse(Substring($0)) } ?? .nan
            if time.isFinite { lastTime = max(lastTime, time) }
            switch cls {
            case "TPV":
                let fix = GPSFix(time: time, mode: obj["mode"] as? Int ?? 0,
                                 latitude: num(obj["lat"]), longitude: num(obj["lon"]),
                                 altitude: num(obj["altMSL"] ?? obj["alt"]), eph: num(obj["eph"]),
                                 epv: num(obj["epv"]), speed: num(obj["speed"]), track: num(obj["track"]),
                                 climb: num(obj["climb"]))
                let at = time.isFinite ? time : lastTime
                for e in assembler.addTPV(fix, at: at) where e.at.isFinite {
                    out.append(Entry(fix: e.fix, at: e.at))
                }
            case "GST":
                if time.isFinite {
                    assembler.addGST(time: time, lat: num(obj["lat"]), lon: num(obj["lon"]), alt: num(obj["alt"]))
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

    private static func num(_ v: Any?) -> Double {
        if let d = v as? Double { return d }
        if let i = v as? Int { return Double(i) }
        if let n = v as? NSNumber { return n.doubleValue }
        return .nan
    }
}
