import FoundationEssentials
import MoonRunnerCore

/// The parts of the route picture one at a time, each a standalone
/// `<svg>` sized for a phone (400 px wide, scaled by its `viewBox`): the
/// web app's session page shows them between its own figures. They are
/// drawn by the same `RouteMap` and `ProfileChart` as the exported picture
/// (`SVGRouteWriter`), only narrower and in the reader's language.
public struct SessionPictures: Sendable {
    public let session: ExportSession
    public let units: UnitSystem
    public let labels: ChartLabels
    /// Width of each picture in SVG pixels; a phone shows them at about this size.
    public static let width = 400.0
    private let track: ExportTrack

    public init(_ session: ExportSession, units: UnitSystem = .metric, labels: ChartLabels = .english) {
        self.session = session
        self.units = units
        self.labels = labels
        track = ExportTrack(session)
    }

    /// The route coloured by speed with start, finish, pauses, GPS outages,
    /// distance marks, the colour legend and a scale bar.
    public func routeMap() -> String {
        let speeds = SVGRouteWriter.smoothedSpeeds(session.points, radius: 3)
        let scale = SpeedColourScale(speeds: speeds)
        let map = RouteMap(points: session.points, width: Self.width)
        return picture(height: map.height, title: session.title, defs: Self.speedGradient) {
            map.draw(session: session, track: track, speeds: speeds, scale: scale, units: units, top: 0, left: 0,
                     labels: labels, into: &$0)
        }
    }

    /// Pace over distance, bars coloured like the route.
    public func paceChart() -> String {
        chart(title: labels.pace) { chart, svg in
            let speeds = SVGRouteWriter.smoothedSpeeds(session.points, radius: 3)
            chart.drawPace(session: session, track: track, paused: PausedTime(session.pauses),
                           scale: SpeedColourScale(speeds: speeds), top: Self.chartTop, height: Self.chartHeight, into: &svg)
        }
    }

    /// Elevation over distance, a filled profile.
    public func elevationChart() -> String {
        chart(title: labels.elevation, defs: Self.groundGradient) { chart, svg in
            chart.drawElevation(session: session, track: track, top: Self.chartTop, height: Self.chartHeight, into: &svg)
        }
    }

    /// Cadence over distance.
    public func cadenceChart() -> String {
        chart(title: labels.cadence) { chart, svg in
            chart.drawCadence(session: session, track: track, top: Self.chartTop, height: Self.chartHeight, into: &svg)
        }
    }

    // MARK: Layout

    static let chartTop = 36.0
    static let chartHeight = 130.0
    /// Under the plot: the distance ticks and the axis title.
    static let chartBottom = 48.0

    private func chart(title: String, defs: String = "", draw: (ProfileChart, inout SVGCanvas) -> Void) -> String {
        let chart = ProfileChart(left: 64, right: Self.width - 8, units: units, total: track.distance.total,
                                 labels: labels, titleX: 2)
        return picture(height: Self.chartTop + Self.chartHeight + Self.chartBottom, title: title, defs: defs) {
            draw(chart, &$0)
        }
    }

    private func picture(height: Double, title: String, defs: String, draw: (inout SVGCanvas) -> Void) -> String {
        var svg = SVGCanvas(capacity: 16 * 1024 + session.points.count * 12)
        svg.out.write("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ")
        svg.number(Self.width)
        svg.out.write(" ")
        svg.number(height)
        svg.out.write("\" width=\"")
        svg.number(Self.width)
        svg.out.write("\" height=\"")
        svg.number(height)
        svg.out.write("\" role=\"img\" font-family=\"")
        svg.out.write(text: SVGCanvas.font)
        svg.out.write("\">\n<title>")
        svg.out.write(xmlEscaped: title)
        svg.out.write("</title>\n")
        if !defs.isEmpty { svg.out.write(text: defs) }
        draw(&svg)
        svg.out.write("</svg>\n")
        return String(decoding: svg.out.bytes, as: UTF8.self)
    }

    /// The legend's colour ramp (ids are distinct per picture kind, so that
    /// several pictures can sit in one page).
    static let speedGradient = """
        <defs><linearGradient id="speed" x1="0" x2="1" y1="0" y2="0">\
        <stop offset="0" stop-color="#ff142c"/><stop offset="0.5" stop-color="#ffd700"/>\
        <stop offset="1" stop-color="#00924e"/></linearGradient></defs>

        """
    static let groundGradient = """
        <defs><linearGradient id="ground" x1="0" x2="0" y1="0" y2="1">\
        <stop offset="0" stop-color="#6b8fb3" stop-opacity="0.85"/>\
        <stop offset="1" stop-color="#6b8fb3" stop-opacity="0.15"/></linearGradient></defs>

        """
}
