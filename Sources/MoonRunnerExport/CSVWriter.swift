import FoundationEssentials
import MoonRunnerCore

/// One row per track point, for spreadsheets and scripts:
/// `time,lat,lon,ele_m,speed_mps,distance_m,cadence_spm,segment,hr_bpm,ele_source`.
/// `time` is ISO 8601 UTC, `distance_m` is cumulative along the track,
/// `cadence_spm` is steps per minute (both feet, unlike the Garmin formats),
/// `segment` numbers the moving stretches from 1, `hr_bpm` is the heart rate
/// at the point, `ele_source` where `ele_m` came from (`barometric`, `dem`,
/// `gps`: `PointAltitudeSources`). Unknown values are empty (a missing heart
/// rate too, never 0).
public enum CSVWriter {
    public static let header = "time,lat,lon,ele_m,speed_mps,distance_m,cadence_spm,segment,hr_bpm,ele_source"

    public static func write(_ session: ExportSession) -> Data {
        let track = ExportTrack(session)
        let sources = PointAltitudeSources.of(session)
        var out = OutputBuffer(capacity: 128 + session.points.count * 90)
        out.write(text: header)
        out.write("\n")
        var segment = 0
        for (i, p) in session.points.enumerated() {
            if i == 0 || p.newSegment { segment += 1 }
            out.write(isoTime: p.time)
            out.write(",")
            out.write(p.latitude, decimals: 7)
            out.write(",")
            out.write(p.longitude, decimals: 7)
            out.write(",")
            if p.altitude.isFinite { out.write(p.altitude, decimals: 1) }
            out.write(",")
            if p.speed.isFinite { out.write(p.speed, decimals: 3) }
            out.write(",")
            out.write(track.distance.cumulative[i], decimals: 2)
            out.write(",")
            if track.hasCadence { out.write(track.cadence[i], decimals: 1) }
            out.write(",")
            out.write(int: segment)
            out.write(",")
            if let hr = ExportTrack.heartRate(p) { out.write(int: hr) }
            out.write(",")
            out.write(text: sources[i].rawValue)
            out.write("\n")
        }
        return out.data
    }
}
