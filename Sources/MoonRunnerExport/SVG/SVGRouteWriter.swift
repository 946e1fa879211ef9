import FoundationEssentials
import MoonRunnerCore

/// A picture of a session for people: a title with the date and the key
/// figures, the route coloured by speed (red slow, yellow middling, green
/// fast, relative to the session's own 5th–95th percentile speeds) with
/// start, finish, distance markers, a legend and a scale bar, and below it
/// a pace profile, an elevation profile and (with steps) a cadence profile
/// over distance.
///
/// Sized for a screen (960 px wide); long sessions stay small because the
/// route is drawn as runs of equal colour with sub-pixel steps dropped, and
/// the profiles are binned to the chart width.
public enum SVGRouteWriter {
    static let width = 960.0
    static let margin = 32.0
    static let contentWidth = width - 2 * margin

    public static func write(_ session: ExportSession, units: UnitSystem = .metric) -> Data {
        let track = ExportTrack(session)
        let paused = PausedTime(session.pauses)
        let speeds = smoothedSpeeds(session.points, radius: 3)
        let scale = SpeedColourScale(speeds: speeds)
        let map = RouteMap(points: session.points, width: contentWidth)

        let headerHeight = 172.0
        let mapTop = headerHeight
        let paceTop = mapTop + map.height + 28
        let paceHeight = 150.0
        let elevationTop = paceTop + paceHeight + 74
        let elevationHeight = 120.0
        let cadenceTop = elevationTop + elevationHeight + 74
        let cadenceHeight = track.hasCadence ? 120.0 : 0
        let totalHeight = (track.hasCadence ? cadenceTop + cadenceHeight : elevationTop + elevationHeight) + 84

        var svg = SVGCanvas(capacity: 64 * 1024 + session.points.count * 16)
        writeOpening(session, height: totalHeight, into: &svg)

        drawHeader(session, units: units, into: &svg)
        map.draw(session: session, track: track, speeds: speeds, scale: scale, units: units,
                 top: mapTop, left: margin, into: &svg)
        let profile = ProfileChart(left: margin + 64, right: width - margin - 8, units: units,
                                   total: track.distance.total)
        profile.drawPace(session: session, track: track, paused: paused, scale: scale,
                         top: paceTop, height: paceHeight, into: &svg)
        profile.drawElevation(session: session, track: track, top: elevationTop, height: elevationHeight,
                              into: &svg)
        if track.hasCadence {
            profile.drawCadence(session: session, track: track, top: cadenceTop, height: cadenceHeight, into: &svg)
        }

        drawFooter(session, track: track, bottom: totalHeight, into: &svg)
        svg.out.write("</svg>\n")
        return svg.out.data
    }

    /// The XML declaration, the `<svg>` element, its title, the gradients the map's legend and the
    /// elevation profile fill with, and the background.
    private static func writeOpening(_ session: ExportSession, height totalHeight: Double, into svg: inout SVGCanvas) {
        svg.out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        svg.number(width)
        svg.out.write("\" height=\"")
        svg.number(totalHeight)
        svg.out.write("\" viewBox=\"0 0 ")
        svg.number(width)
        svg.out.write(" ")
        svg.number(totalHeight)
        svg.out.write("\" font-family=\"")
        svg.out.write(text: SVGCanvas.font)
        svg.out.write("\">\n<title>")
        svg.out.write(xmlEscaped: session.title)
        svg.out.write("""
            </title>
            <defs>
            <linearGradient id="speed" x1="0" x2="1" y1="0" y2="0">\
            <stop offset="0" stop-color="#ff142c"/><stop offset="0.5" stop-color="#ffd700"/>\
            <stop offset="1" stop-color="#00924e"/></linearGradient>
            <linearGradient id="ground" x1="0" x2="0" y1="0" y2="1">\
            <stop offset="0" stop-color="#6b8fb3" stop-opacity="0.85"/>\
            <stop offset="1" stop-color="#6b8fb3" stop-opacity="0.15"/></linearGradient>
            </defs>

            """)
        svg.rect(x: 0, y: 0, width: width, height: totalHeight, fill: "#fbfcfd")
    }

    /// The session's number, laps and moving stretches, small at the bottom.
    private static func drawFooter(_ session: ExportSession, track: ExportTrack, bottom totalHeight: Double,
                                   into svg: inout SVGCanvas) {
        var footer = "MoonRunner · session \(session.id)"
        footer += " · \(session.laps.count) lap\(session.laps.count == 1 ? "" : "s")"
        let stretches = GeoJSONWriter.stretchRanges(track: track, count: session.points.count).count
        footer += " · \(stretches) moving stretch\(stretches == 1 ? "" : "es")"
        svg.text(footer, x: margin, y: totalHeight - 18, size: 11, fill: "#8a96a3")
    }

    // MARK: Header

    private static func drawHeader(_ session: ExportSession, units: UnitSystem, into svg: inout SVGCanvas) {
        let noun = session.activity.profile.sport.noun
        let kind = noun.prefix(1).uppercased() + noun.dropFirst()
        svg.text("\(kind) · \(dateText(session.startTime))", x: margin, y: 50, size: 26, fill: "#1f2933",
                 weight: "bold")
        svg.text(session.title, x: margin, y: 76, size: 14, fill: "#8a96a3")

        let moving = session.moving, distance = session.distance
        let speed = moving > 0 ? distance / moving : 0
        let gain = session.stats.elevationGain
        var tiles: [(String, String)] = [
            (Formatting.distance(distance, units), "distance"),
            (Formatting.duration(moving), "moving time"),
            (Formatting.pace(speed: speed, units), "average pace"),
            (Formatting.duration(session.elapsed), "elapsed"),
        ]
        tiles.append((gain > 0 ? "+\(gain.fixed(0)) m" : "–", "climb"))
        let steps = session.totalSteps
        tiles.append((steps > 0 && moving > 0 ? "\((Double(steps) / moving * 60).fixed(0)) spm" : "–",
                      "cadence"))
        tiles.append(("\(session.calories.fixed(0)) kcal", "energy"))

        let tileWidth = contentWidth / Double(tiles.count)
        for (k, tile) in tiles.enumerated() {
            let x = margin + Double(k) * tileWidth
            svg.rect(x: x + 2, y: 96, width: tileWidth - 4, height: 60, fill: "#ffffff", radius: 8,
                     extra: "stroke=\"#e3e8ee\"")
            svg.text(tile.0, x: x + tileWidth / 2, y: 124, size: 17, fill: "#1f2933", anchor: .middle,
                     weight: "bold")
            svg.text(tile.1, x: x + tileWidth / 2, y: 144, size: 11, fill: "#8a96a3", anchor: .middle)
        }
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August",
                             "September", "October", "November", "December"]
    static let weekdayNames = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"]

    /// "Wednesday 1 May 2024, 07:30 UTC".
    static func dateText(_ t: Double) -> String {
        guard t.isFinite else { return "unknown date" }
        let u = UTCTime(t)
        let days = UTCTime.floorDiv(Int64(t.rounded(.down)), 86_400).0
        let weekday = weekdayNames[Int(UTCTime.floorDiv(days, 7).1)]
        let month = monthNames[Int(max(1, min(12, u.month))) - 1]
        return "\(weekday) \(Int(u.day)) \(month) \(Int(u.year)), \(Int(u.hour).zeroPadded(2)):\(Int(u.minute).zeroPadded(2)) UTC"
    }

    /// Segment speeds (see `SpeedColourScale.segmentSpeeds`) averaged over
    /// ±`radius` segments of the same stretch, so the colours show the
    /// runner's pace rather than GPS jitter.
    static func smoothedSpeeds(_ points: [TrackPoint], radius: Int) -> [Double] {
        let raw = SpeedColourScale.segmentSpeeds(of: points)
        var out = raw
        var stretchStart = 0
        for i in raw.indices {
            if i == 0 || points[i].newSegment { stretchStart = i }
            guard raw[i].isFinite else { continue }
            var sum = 0.0, n = 0.0
            var j = max(stretchStart + 1, i - radius)
            while j <= i + radius && j < raw.count {
                if j > i && points[j].newSegment { break }
                if raw[j].isFinite {
                    sum += raw[j]
                    n += 1
                }
                j += 1
            }
            out[i] = n > 0 ? sum / n : raw[i]
        }
        return out
    }

    /// A pace as "m:ss" (no unit), "–" when not moving.
    static func paceText(speed: Double, units: UnitSystem) -> String {
        guard speed.isFinite, speed > 0.05 else { return "–" }
        let s = Int((units.metresPerUnit / speed).rounded())
        return "\(s / 60):\((s % 60).zeroPadded(2))"
    }
}
