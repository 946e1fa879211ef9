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
        let stretches = Self.stretches(session, track: track)
        var out = OutputBuffer(capacity: 1024 + session.points.count * 80)
        // Colours relative to the session's own stretch speeds.
        let scale = SpeedColourScale(speeds: SpeedColourScale.segmentSpeeds(of: session.points))
        let hr = session.hasHeartRate ? session.heartRateSummary() : nil

        out.write("{\"type\":\"FeatureCollection\",\"session\":")
        writeSummary(session, heartRate: hr, into: &out)
        out.write(",\"features\":[")
        for s in stretches {
            if s.number > 1 { out.write(",") }
            out.write("\n{\"type\":\"Feature\",\"geometry\":")
            writeGeometry(s.points, into: &out)
            out.write(",\"properties\":")
            writeProperties(s, stroke: scale.colour(for: s.speed).hex, heartRate: hr != nil, into: &out)
            out.write("}")
        }
        out.write("\n]}\n")
        return out.data
    }

    /// One moving stretch and its figures: metres, moving seconds, m/s.
    private struct Stretch {
        var number: Int
        var points: ArraySlice<TrackPoint>
        var distance: Double
        var moving: Double
        var speed: Double
    }

    private static func stretches(_ session: ExportSession, track: ExportTrack) -> [Stretch] {
        let paused = PausedTime(session.pauses)
        return stretchRanges(track: track, count: session.points.count).enumerated().map { k, r in
            let moving = paused.moving(from: session.points[r.lowerBound].time, to: session.points[r.upperBound - 1].time)
            let d = track.distance.cumulative[r.upperBound - 1] - track.distance.cumulative[r.lowerBound]
            return Stretch(number: k + 1, points: session.points[r], distance: d, moving: moving,
                           speed: moving > 0 ? d / moving : 0)
        }
    }

    /// The foreign member `"session"`: the session's summary.
    private static func writeSummary(_ session: ExportSession, heartRate hr: HeartRateSummary?,
                                     into out: inout OutputBuffer) {
        out.write("{\"id\":")
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
        for (key, value) in [("avg_hr_bpm", hr?.averageBPM), ("max_hr_bpm", hr?.maxBPM)] {
            out.write(text: ",\"\(key)\":")
            if let value, value.isFinite { out.write(value, decimals: 1) } else { out.write("null") }
        }
        if session.stats.demPoints > 0 {
            // Where the elevation came from, when a terrain model gave any of it.
            let s = session.stats.altitudeShares
            out.write(text: ",\"altitude_source\":\"\(session.stats.altitudeSource.rawValue)\",\"altitude_shares\":")
            for (i, (key, share)) in [("barometric", s.barometric), ("dem", s.dem), ("gps", s.gps)].enumerated() {
                out.write(text: (i == 0 ? "{\"" : ",\"") + key + "\":")
                out.write(share, decimals: 3)
            }
            out.write("}")
        }
        out.write("}")
    }

    /// A LineString, or a Point for a stretch of a single fix; positions `[lon, lat, ele]`,
    /// ele only when every position has one.
    private static func writeGeometry(_ points: ArraySlice<TrackPoint>, into out: inout OutputBuffer) {
        let hasAltitude = points.allSatisfy { $0.altitude.isFinite }
        out.write("{\"type\":\"")
        out.write(points.count > 1 ? "LineString" : "Point")
        out.write("\",\"coordinates\":")
        if points.count > 1 { out.write("[") }
        for i in points.indices {
            if i > points.startIndex { out.write(",") }
            let p = points[i]
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
        if points.count > 1 { out.write("]") }
        out.write("}")
    }

    /// The stretch's properties: its ends' times, figures, colour and per-position times (and heart rates).
    private static func writeProperties(_ s: Stretch, stroke: String, heartRate: Bool, into out: inout OutputBuffer) {
        let points = s.points
        out.write("{\"stretch\":")
        out.write(int: s.number)
        out.write(",\"start_time\":\"")
        out.write(isoTime: points[points.startIndex].time)
        out.write("\",\"end_time\":\"")
        out.write(isoTime: points[points.endIndex - 1].time)
        out.write("\",\"distance_m\":")
        out.write(s.distance, decimals: 1)
        out.write(",\"moving_s\":")
        out.write(s.moving, decimals: 1)
        out.write(",\"avg_speed_mps\":")
        out.write(s.speed, decimals: 3)
        out.write(",\"stroke\":\"")
        out.write(text: stroke)
        out.write("\",\"stroke-width\":4,\"coordTimes\":[")
        for i in points.indices {
            if i > points.startIndex { out.write(",") }
            out.write("\"")
            out.write(isoTime: points[i].time)
            out.write("\"")
        }
        out.write("]")
        if heartRate {
            out.write(",\"hr_bpm\":[")
            for i in points.indices {
                if i > points.startIndex { out.write(",") }
                if let bpm = ExportTrack.heartRate(points[i]) { out.write(int: bpm) } else { out.write("null") }
            }
            out.write("]")
        }
        out.write("}")
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
