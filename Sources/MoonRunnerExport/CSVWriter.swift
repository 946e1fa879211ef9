import FoundationEssentials
import MoonRunnerCore

/// One row per track point, for spreadsheets and scripts:
/// `time,lat,lon,ele_m,speed_mps,distance_m,cadence_spm,segment`.
/// `time` is ISO 8601 UTC, `distance_m` is cumulative along the track,
/// `cadence_spm` is steps per minute (both feet, unlike the Garmin formats),
/// `segment` numbers the moving stretches from 1. Unknown values are empty.
public enum CSVWriter {
    public static let header = "time,lat,lon,ele_m,speed_mps,distance_m,cadence_spm,segment"

    public static func write(_ session: ExportSession) -> Data {
        let track = ExportTrack(session)
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
            out.write("\n")
        }
        return out.data
    }
}
