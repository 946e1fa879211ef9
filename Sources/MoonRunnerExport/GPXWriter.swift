import FoundationEssentials
import MoonRunnerCore

/// GPX 1.1 (topografix.com/GPX/1/1): one `<trk>`, one `<trkseg>` per moving
/// stretch (`newSegment`: pauses and GPS outages are not drawn as straight
/// lines) and per workout step (`GPXLaps`), `<ele>` and `<time>` (ISO 8601
/// UTC) per point.
///
/// Heart rate and cadence in Garmin's TrackPointExtension v2 (`<gpxtpx:hr>`
/// then `<gpxtpx:cad>`, the schema's order), as Garmin's exports and Strava
/// read them; a missing heart rate is left out, never 0. Cadence is per foot,
/// strides per minute (170 steps/min → 85), as Garmin watches record it, and
/// only with step data. The followed course's points (turns, water, ...) are
/// waypoints before the track (`<name>`, `<desc>`, `<sym>`, `<type>`: the TCX
/// word for its kind), so that the export added as a course has them again.
public enum GPXWriter {
    public static func write(_ session: ExportSession) -> Data {
        let track = ExportTrack(session)
        let laps = GPXLaps(session)
        var out = OutputBuffer(capacity: 1024 + session.points.count * 230)
        writeMetadata(session, laps: laps, into: &out)
        writeWaypoints(session.coursePoints, into: &out)
        out.write(" <trk>\n  <name>")
        out.write(xmlEscaped: session.title)
        out.write("</name>\n")
        writeCourseNote(session, into: &out)
        out.write("  <type>")
        out.write(text: session.activity.profile.sport.gpx)
        out.write("</type>\n")

        var open = false
        for (i, p) in session.points.enumerated() {
            if i == 0 || p.newSegment || laps.startsLap(i) {
                if open { out.write("  </trkseg>\n") }
                out.write("  <trkseg>\n")
                open = true
            }
            writePoint(p, cadence: track.hasCadence ? track.cadence[i] : nil, into: &out)
            // A lap's extensions close its last segment (trksegType: the points, then extensions).
            laps.writeEnd(at: i, session: session, into: &out)
        }
        if open { out.write("  </trkseg>\n") }
        out.write(" </trk>\n</gpx>\n")
        return out.data
    }

    private static func writeWaypoints(_ points: [CourseCue], into out: inout OutputBuffer) {
        for c in points {
            out.write(" <wpt lat=\"")
            out.write(c.latitude, decimals: 7)
            out.write("\" lon=\"")
            out.write(c.longitude, decimals: 7)
            out.write("\">\n")
            if let name = c.name {
                out.write("  <name>")
                out.write(xmlEscaped: name)
                out.write("</name>\n")
            }
            if let notes = c.notes {
                out.write("  <desc>")
                out.write(xmlEscaped: notes)
                out.write("</desc>\n")
            }
            out.write("  <sym>")
            out.write(text: c.kind.tcxName)
            out.write("</sym>\n  <type>")
            out.write(text: c.kind.tcxName)
            out.write("</type>\n </wpt>\n")
        }
    }

    /// The XML declaration, the `<gpx>` element with its schemas (the laps' too
    /// when it has any), and `<metadata>`.
    private static func writeMetadata(_ session: ExportSession, laps: GPXLaps, into out: inout OutputBuffer) {
        out.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="MoonRunner" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
            """)
        if !laps.isEmpty { out.write(text: GPXLaps.namespaces) }
        out.write("""
             xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd \
            http://www.garmin.com/xmlschemas/TrackPointExtension/v2 \
            http://www.garmin.com/xmlschemas/TrackPointExtensionv2.xsd
            """)
        if !laps.isEmpty { out.write(text: GPXLaps.schemaLocation) }
        out.write("""
            ">
             <metadata>
              <name>
            """)
        out.write(xmlEscaped: session.title)
        out.write("</name>\n")
        writeCourseNote(session, into: &out)
        out.write("  <time>")
        out.write(isoTime: session.startTime)
        out.write("</time>\n")
        writeBounds(session.points, into: &out)
        out.write(" </metadata>\n")
    }

    /// One `<trkpt>`: position, elevation when known, time, and the extension
    /// when there is a heart rate or (`cadence`, steps/min) step data.
    private static func writePoint(_ p: TrackPoint, cadence: Double?, into out: inout OutputBuffer) {
        out.write("   <trkpt lat=\"")
        out.write(p.latitude, decimals: 7)
        out.write("\" lon=\"")
        out.write(p.longitude, decimals: 7)
        out.write("\">")
        if p.altitude.isFinite {
            out.write("<ele>")
            out.write(p.altitude, decimals: 1)
            out.write("</ele>")
        }
        out.write("<time>")
        out.write(isoTime: p.time)
        out.write("</time>")
        let hr = ExportTrack.heartRate(p)
        if cadence != nil || hr != nil {
            out.write("<extensions><gpxtpx:TrackPointExtension>")
            if let hr {
                out.write("<gpxtpx:hr>")
                out.write(int: hr)
                out.write("</gpxtpx:hr>")
            }
            if let cadence {
                out.write("<gpxtpx:cad>")
                out.write(int: ExportTrack.strideCadence(cadence))
                out.write("</gpxtpx:cad>")
            }
            out.write("</gpxtpx:TrackPointExtension></extensions>")
        }
        out.write("</trkpt>\n")
    }

    /// `<desc>Followed course NAME</desc>` when the session followed one, and where its elevation came from
    /// when a terrain model gave any of it.
    private static func writeCourseNote(_ session: ExportSession, into out: inout OutputBuffer) {
        guard let note = session.note else { return }
        out.write("  <desc>")
        out.write(xmlEscaped: note)
        out.write("</desc>\n")
    }

    private static func writeBounds(_ points: [TrackPoint], into out: inout OutputBuffer) {
        guard let first = points.first else { return }
        var minLat = first.latitude, maxLat = first.latitude
        var minLon = first.longitude, maxLon = first.longitude
        for p in points {
            minLat = min(minLat, p.latitude)
            maxLat = max(maxLat, p.latitude)
            minLon = min(minLon, p.longitude)
            maxLon = max(maxLon, p.longitude)
        }
        out.write("  <bounds minlat=\"")
        out.write(minLat, decimals: 7)
        out.write("\" minlon=\"")
        out.write(minLon, decimals: 7)
        out.write("\" maxlat=\"")
        out.write(maxLat, decimals: 7)
        out.write("\" maxlon=\"")
        out.write(maxLon, decimals: 7)
        out.write("\"/>\n")
    }
}
