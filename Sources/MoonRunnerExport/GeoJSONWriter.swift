import FoundationEssentials
import MoonRunnerCore

/// GeoJSON (RFC 7946): a FeatureCollection with one Feature per moving
/// stretch (a LineString; a Point for a stretch of a single fix), positions
/// `[lon, lat, ele]` (ele only when the whole stretch has altitudes).
/// Stretch properties: number, ISO times of its ends, distance, moving
/// time, average speed, a `stroke` colour by speed (simplestyle, read by
/// geojson.io and others) and `coordTimes` (per-position ISO times, as
/// togeojson writes them), and `hr_bpm` (per-position heart rate, null where
/// missing) when the session has heart rate. The session summary is a
/// foreign member `"session"` of the collection (with `avg_hr_bpm`,
/// `max_hr_bpm` and `calories_method`).
public enum GeoJSONWriter {
    public static func write(_ session: ExportSession) -> Data {
        let track = ExportTrack(session)
        let paused = PausedTime(session.pauses)
        let stretches = stretchRanges(track: track, count: session.points.count)
        var out = OutputBuffer(capacity: 1024 + session.points.count * 80)

        // Colours relative to the session's own stretch speeds.
        var stretchSpeeds: [Double] = []
        for r in stretches {
            let moving = paused.moving(from: session.points[r.lowerBound].time, to: session.points[r.upperBound - 1].time)
            let d = track.distance.cumulative[r.upperBound - 1] - track.distance.cumulative[r.lowerBound]
            stretchSpeeds.append(moving > 0 ? d / moving : 0)
        }
        let scale = SpeedColourScale(speeds: SpeedColourScale.segmentSpeeds(of: session.points))

        out.write("{\"type\":\"FeatureCollection\",\"session\":{\"id\":")
        out.write(int: session.id)
        out.write(",\"title\":\"")
        out.write(jsonEscaped: session.title)
        out.write("\",\"activity\":\"")
        out.write(text: session.activity.rawValue)
        out.write("\",\"start_time\":\"")
        out.write(isoTime: session.startTime)
        out.write("\",\"end_time\":\"")
        out.write(isoTime: session.endTime)
        out.write("\",\"distance_m\":")
        out.write(session.distance, decimals: 1)
        out.write(",\"elapsed_s\":")
        out.write(session.elapsed, decimals: 1)
        out.write(",\"moving_s\":")
        out.write(session.moving, decimals: 1)
        out.write(",\"steps\":")
        out.write(int: session.totalSteps)
        out.write(",\"calories_kcal\":")
        out.write(session.calories, decimals: 0)
        out.write(",\"calories_method\":\"")
        out.write(text: session.calorieMethod.rawValue)
        out.write("\",\"laps\":")
        out.write(int: session.laps.count)
        let hr = session.hasHeartRate ? session.heartRateSummary() : nil
        for (key, value) in [("avg_hr_bpm", hr?.averageBPM), ("max_hr_bpm", hr?.maxBPM)] {
            out.write(text: ",\"\(key)\":")
            if let value, value.isFinite { out.write(value, decimals: 1) } else { out.write("null") }
        }
        out.write("},\"features\":[")

        for (k, r) in stretches.enumerated() {
            if k > 0 { out.write(",") }
            let hasAltitude = session.points[r].allSatisfy { $0.altitude.isFinite }
            out.write("\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"")
            out.write(r.count > 1 ? "LineString" : "Point")
            out.write("\",\"coordinates\":")
            if r.count > 1 { out.write("[") }
            for i in r {
                if i > r.lowerBound { out.write(",") }
                let p = session.points[i]
                out.write("[")
                out.write(p.longitude, decimals: 7)
                out.write(",")
                out.write(p.latitude, decimals: 7)
                if hasAltitude {
                    out.write(",")
                    out.write(p.altitude, decimals: 1)
                }
                out.write("]")
            }
            if r.count > 1 { out.write("]") }
            let first = session.points[r.lowerBound], last = session.points[r.upperBound - 1]
            out.write("},\"properties\":{\"stretch\":")
            out.write(int: k + 1)
            out.write(",\"start_time\":\"")
            out.write(isoTime: first.time)
            out.write("\",\"end_time\":\"")
            out.write(isoTime: last.time)
            out.write("\",\"distance_m\":")
            out.write(track.distance.cumulative[r.upperBound - 1] - track.distance.cumulative[r.lowerBound], decimals: 1)
            out.write(",\"moving_s\":")
            out.write(paused.moving(from: first.time, to: last.time), decimals: 1)
            out.write(",\"avg_speed_mps\":")
            out.write(stretchSpeeds[k], decimals: 3)
            out.write(",\"stroke\":\"")
            out.write(text: scale.colour(for: stretchSpeeds[k]).hex)
            out.write("\",\"stroke-width\":4,\"coordTimes\":[")
            for i in r {
                if i > r.lowerBound { out.write(",") }
                out.write("\"")
                out.write(isoTime: session.points[i].time)
                out.write("\"")
            }
            out.write("]")
            if hr != nil {
                out.write(",\"hr_bpm\":[")
                for i in r {
                    if i > r.lowerBound { out.write(",") }
                    if let bpm = ExportTrack.heartRate(session.points[i]) { out.write(int: bpm) } else { out.write("null") }
                }
                out.write("]")
            }
            out.write("}}")
        }
        out.write("\n]}\n")
        return out.data
    }

    /// Index ranges of the stretches of the track.
    static func stretchRanges(track: ExportTrack, count: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for i in 0..<count where i > 0 && track.distance.startsStretch(i) {
            ranges.append(start..<i)
            start = i
        }
        if count > 0 { ranges.append(start..<count) }
        return ranges
    }
}
