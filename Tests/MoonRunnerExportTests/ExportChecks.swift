import Foundation
import MoonRunnerCore
@testable import MoonRunnerExport

/// What the independent readers are compared against: figures computed
/// here from the session's points, not from any export.
struct SessionTruth {
    var points: Int
    var stretches: Int
    /// Metres inside stretches (haversine on the points, like the readers do).
    var distance: Double
    /// Seconds from the first to the last point.
    var span: Double

    init(_ session: ExportSession) {
        points = session.points.count
        stretches = session.points.enumerated().filter { $0.offset == 0 || $0.element.newSegment }.count
        distance = TrackDistance(points: session.points).total
        span = (session.points.last?.time ?? 0) - (session.points.first?.time ?? 0)
    }
}

/// A point of gpsbabel's `unicsv` output.
struct BabelPoint {
    var lat: Double
    var lon: Double
    var altitude: Double?
    var cadence: Double?
    var time: Double
}

enum Gpsbabel {
    /// Reads `file` (format `input`: gpx, gtrnctr) with gpsbabel into points.
    static func trackPoints(_ file: URL, input: String) throws -> [BabelPoint] {
        let r = try ExternalTool.run("gpsbabel", ["-t", "-i", input, "-f", file.path, "-o", "unicsv,utc=0", "-F", "-"],
                                     hint: ExternalTool.gpsbabelHint)
        guard r.status == 0 else { throw ExternalTool.Failure("gpsbabel failed (\(r.status)): \(r.stderr)") }
        let lines = r.stdout.split(whereSeparator: \.isNewline)
        guard let header = lines.first?.split(separator: ",").map(String.init) else { return [] }
        func column(_ name: String) -> Int? { header.firstIndex(of: name) }
        guard let lat = column("Latitude"), let lon = column("Longitude"), let date = column("Date"),
              let time = column("Time") else {
            throw ExternalTool.Failure("gpsbabel unicsv header without position/time: \(header)")
        }
        let alt = column("Altitude"), cad = column("Cadence")
        let calendar: Calendar = {
            var c = Calendar(identifier: .gregorian)
            c.timeZone = TimeZone(identifier: "UTC") ?? .current
            return c
        }()
        return try lines.dropFirst().map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let d = f[date].split(separator: "/").compactMap { Int($0) }
            let hms = f[time].split(separator: ":").compactMap { Double($0) }
            guard d.count == 3, hms.count == 3,
                  let base = calendar.date(from: DateComponents(year: d[0], month: d[1], day: d[2])),
                  let la = Double(f[lat]), let lo = Double(f[lon]) else {
                throw ExternalTool.Failure("unreadable gpsbabel line: \(line)")
            }
            let t = base.timeIntervalSince1970 + hms[0] * 3600 + hms[1] * 60 + hms[2]
            return BabelPoint(lat: la, lon: lo, altitude: alt.flatMap { Double(f[$0]) },
                              cadence: cad.flatMap { Double(f[$0]) }, time: t)
        }
    }

    /// Sum of legs between consecutive points, leaving out legs across a
    /// time gap longer than `gap` seconds (the pauses between stretches).
    static func distance(_ points: [BabelPoint], gap: Double = 5) -> Double {
        var total = 0.0
        for (a, b) in zip(points, points.dropFirst()) where b.time - a.time <= gap {
            total += Geodesy.distance(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
        }
        return total
    }
}

/// Relative difference |a − b| / |b|.
func relativeError(_ a: Double, _ b: Double) -> Double {
    b == 0 ? abs(a) : abs(a - b) / abs(b)
}
