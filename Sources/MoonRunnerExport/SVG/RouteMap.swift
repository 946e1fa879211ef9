import FoundationEssentials
import Glibc
import MoonRunnerCore

/// The map panel of the route picture: the track projected on a local
/// tangent plane (north up, true scale), fitted into the panel.
struct RouteMap {
    let width: Double
    let height: Double
    /// Panel-relative pixel position of each point.
    private let xs: [Double]
    private let ys: [Double]
    /// Pixels per metre.
    let pixelsPerMetre: Double
    /// The shortest step drawn, pixels: 0.8 (sub-pixel steps add nothing),
    /// longer when the track's drawn length would need more than
    /// `maxDrawnSteps` of those (a 10-hour session of laps draws its 50 laps
    /// over one another: every 12 px of them there is still no visible
    /// corner, and the picture stays a few tens of KB instead of half a MB).
    let minStep: Double
    static let maxDrawnSteps = 4000.0
    static let padding = 36.0
    /// Room under the route for the scale bar and the legend, so they never cover it.
    static let bottomPadding = 84.0

    init(points: [TrackPoint], width: Double) {
        self.width = width
        guard let first = points.first else {
            height = 240
            xs = []
            ys = []
            pixelsPerMetre = 1
            minStep = 0.8
            return
        }
        var minLat = first.latitude, maxLat = first.latitude, minLon = first.longitude, maxLon = first.longitude
        for p in points {
            minLat = min(minLat, p.latitude)
            maxLat = max(maxLat, p.latitude)
            minLon = min(minLon, p.longitude)
            maxLon = max(maxLon, p.longitude)
        }
        let plane = LocalTangentPlane(originLat: (minLat + maxLat) / 2, originLon: (minLon + maxLon) / 2)
        var east = [Double](), north = [Double]()
        east.reserveCapacity(points.count)
        north.reserveCapacity(points.count)
        for p in points {
            let (e, n) = plane.project(lat: p.latitude, lon: p.longitude)
            east.append(e)
            north.append(n)
        }
        let minE = east.min() ?? 0, maxE = east.max() ?? 0, minN = north.min() ?? 0, maxN = north.max() ?? 0
        // At least 100 m across, so a standing-still session is not blown up to the panel.
        let spanE = max(maxE - minE, 100), spanN = max(maxN - minN, 100)
        let pad = RouteMap.padding, bottom = RouteMap.bottomPadding
        let fitWidth = (width - 2 * pad) / spanE
        let h = min(640, max(360, spanN * fitWidth + pad + bottom))
        let s = min(fitWidth, (h - pad - bottom) / spanN)
        height = h
        pixelsPerMetre = s
        let cx = (minE + maxE) / 2, cy = (minN + maxN) / 2
        let middle = pad + (h - pad - bottom) / 2
        xs = east.map { width / 2 + ($0 - cx) * s }
        ys = north.map { middle - ($0 - cy) * s }
        var length = 0.0
        for i in points.indices.dropFirst() where !points[i].newSegment {
            length += hypot(xs[i] - xs[i - 1], ys[i] - ys[i - 1])
        }
        minStep = max(0.8, length / Self.maxDrawnSteps)
    }

    func draw(session: ExportSession, track: ExportTrack, speeds: [Double], scale: SpeedColourScale,
              units: UnitSystem, top: Double, left: Double, labels: ChartLabels = .english,
              into svg: inout SVGCanvas) {
        svg.rect(x: left, y: top, width: width, height: height, fill: "#eef2f5", radius: 12)
        svg.out.write("<g transform=\"translate(")
        svg.point(left, top)
        svg.out.write(")\">\n")
        defer { svg.out.write("</g>\n") }
        drawGrid(into: &svg)
        guard !xs.isEmpty else {
            svg.text(labels.noTrack, x: width / 2, y: height / 2, size: 16, fill: "#8a96a3",
                     anchor: .middle)
            return
        }
        let points = session.points
        let outages = Self.gpsOutages(session.events)
        let lostAt = Set(points.indices.dropFirst().filter {
            track.distance.startsStretch($0) && Self.follows(points[$0].time, outages)
        })

        drawGaps(points: points, track: track, lostAt: lostAt, into: &svg)
        svg.out.write("<g fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n")
        drawCasing(points: points, track: track, into: &svg)
        drawColouredRuns(points: points, track: track, speeds: speeds, scale: scale, into: &svg)
        svg.out.write("</g>\n")
        drawStops(points: points, track: track, lostAt: lostAt, labels: labels, into: &svg)
        drawDistanceMarkers(track: track, units: units, into: &svg)
        let last = points.count - 1
        marker(xs[last], ys[last], fill: "#1f2933", label: labels.finish, into: &svg)
        marker(xs[0], ys[0], fill: "#00924e", label: labels.start, into: &svg)
        drawLegend(scale: scale, units: units, labels: labels, into: &svg)
        drawScaleBar(units: units, into: &svg)
    }

    /// Gaps between stretches: a thin dashed line, not the route; orange where the GPS fix was lost.
    private func drawGaps(points: [TrackPoint], track: ExportTrack, lostAt: Set<Int>, into svg: inout SVGCanvas) {
        for i in points.indices.dropFirst() where track.distance.startsStretch(i) {
            svg.line(xs[i - 1], ys[i - 1], xs[i], ys[i], stroke: lostAt.contains(i) ? "#e8870e" : "#8a96a3",
                     width: lostAt.contains(i) ? 2.5 : 1.5, extra: "stroke-dasharray=\"4 4\"")
        }
    }

    /// Shadow and white casing under the coloured line, one path per stretch.
    private func drawCasing(points: [TrackPoint], track: ExportTrack, into svg: inout SVGCanvas) {
        for (stroke, strokeWidth) in [("#1f2933\" stroke-opacity=\"0.18", 11.0), ("#ffffff", 8.0)] {
            svg.out.write("<path stroke=\"")
            svg.out.write(text: stroke)
            svg.out.write("\" stroke-width=\"")
            svg.number(strokeWidth)
            svg.out.write("\" d=\"")
            var lastX = -1e9, lastY = -1e9
            for i in points.indices {
                let starts = track.distance.startsStretch(i)
                let isLast = i + 1 == points.count || track.distance.startsStretch(i + 1)
                guard starts || isLast || hypot(xs[i] - lastX, ys[i] - lastY) >= minStep else { continue }
                svg.out.write(starts ? "M" : "L")
                svg.point(xs[i], ys[i])
                lastX = xs[i]
                lastY = ys[i]
            }
            svg.out.write("\"/>\n")
        }
    }

    /// Where the wearer stopped and went on: a pause sign at each new stretch;
    /// where the GPS fix was lost, an orange "!" where it was lost and where it came back.
    private func drawStops(points: [TrackPoint], track: ExportTrack, lostAt: Set<Int>, labels: ChartLabels,
                           into svg: inout SVGCanvas) {
        for i in points.indices.dropFirst() where track.distance.startsStretch(i) {
            if lostAt.contains(i) {
                for k in [i - 1, i] { warning(xs[k], ys[k], into: &svg) }
                svg.text(labels.gpsLost, x: xs[i - 1] + 12, y: ys[i - 1] - 10, size: 11, fill: "#a65d00", weight: "bold")
                continue
            }
            svg.circle(xs[i], ys[i], r: 9, fill: "#5b6773", stroke: "#ffffff", width: 2)
            svg.rect(x: xs[i] - 3.5, y: ys[i] - 4, width: 2.5, height: 8, fill: "#ffffff")
            svg.rect(x: xs[i] + 1, y: ys[i] - 4, width: 2.5, height: 8, fill: "#ffffff")
        }
    }

    /// The times the GPS fix was lost and came back (`gps_lost` to
    /// `gps_regained`, or to the end when it never came back).
    static func gpsOutages(_ events: [SessionEvent]) -> [ClosedRange<Double>] {
        var out: [ClosedRange<Double>] = []
        var lost: Double?
        for e in events.sorted(by: { $0.time < $1.time }) {
            if e.kind == .gpsLost, lost == nil { lost = e.time }
            if e.kind == .gpsRegained, let l = lost {
                out.append(l...max(l, e.time))
                lost = nil
            }
        }
        if let l = lost { out.append(l...Double.greatestFiniteMagnitude) }
        return out
    }

    /// True when a stretch starting at `t` is the way back from an outage: it
    /// starts during one or within 10 s after its end (the first fix back
    /// may be refused while the filter settles).
    static func follows(_ t: Double, _ outages: [ClosedRange<Double>]) -> Bool {
        outages.contains { t >= $0.lowerBound && t <= $0.upperBound + 10 }
    }

    private func warning(_ x: Double, _ y: Double, into svg: inout SVGCanvas) {
        svg.circle(x, y, r: 9, fill: "#e8870e", stroke: "#ffffff", width: 2)
        svg.text("!", x: x, y: y + 4.5, size: 13, fill: "#ffffff", anchor: .middle, weight: "bold")
    }

    private func drawGrid(into svg: inout SVGCanvas) {
        var x = 48.0
        while x < width {
            svg.line(x, 0, x, height, stroke: "#e3e8ee", width: 1)
            x += 48
        }
        var y = 48.0
        while y < height {
            svg.line(0, y, width, y, stroke: "#e3e8ee", width: 1)
            y += 48
        }
    }

    /// Runs of segments with the same quantised colour become one polyline
    /// (a run goes on at least `minStep` pixels before its colour may
    /// change); points less than `minStep` from the last one drawn are skipped.
    private func drawColouredRuns(points: [TrackPoint], track: ExportTrack, speeds: [Double],
                                  scale: SpeedColourScale, into svg: inout SVGCanvas) {
        let levels = 48.0
        func level(_ i: Int) -> Int {
            let f = speeds[i].isFinite ? scale.fraction(for: speeds[i]) : 0.5
            return Int((f * (levels - 1)).rounded())
        }
        svg.out.write("<g stroke-width=\"5\">\n")
        var i = 1
        while i < points.count {
            if track.distance.startsStretch(i) {
                i += 1
                continue
            }
            let runLevel = level(i)
            svg.out.write("<polyline stroke=\"")
            svg.out.write(text: SpeedColourScale.colour(fraction: Double(runLevel) / (levels - 1)).hex)
            svg.out.write("\" points=\"")
            svg.point(xs[i - 1], ys[i - 1])
            var lastX = xs[i - 1], lastY = ys[i - 1]
            var drawn = 0.0
            var j = i
            func continues(_ k: Int) -> Bool {
                k < points.count && !track.distance.startsStretch(k) && (level(k) == runLevel || drawn < minStep)
            }
            while continues(j) {
                drawn += hypot(xs[j] - xs[j - 1], ys[j] - ys[j - 1])
                let isLast = !continues(j + 1)
                if isLast || hypot(xs[j] - lastX, ys[j] - lastY) >= minStep {
                    svg.out.write(" ")
                    svg.point(xs[j], ys[j])
                    lastX = xs[j]
                    lastY = ys[j]
                }
                j += 1
            }
            svg.out.write("\"/>\n")
            i = j
        }
        svg.out.write("</g>\n")
    }

    /// A numbered dot at every km (mile); fewer labels on long sessions.
    private func drawDistanceMarkers(track: ExportTrack, units: UnitSystem, into svg: inout SVGCanvas) {
        let unit = units.metresPerUnit
        let count = Int(track.distance.total / unit)
        guard count > 0 else { return }
        let every = count <= 25 ? 1 : count <= 50 ? 2 : count <= 125 ? 5 : 10
        var k = every
        var i = 1
        while k <= count && i < track.distance.count {
            let mark = Double(k) * unit
            while i < track.distance.count && track.distance.cumulative[i] < mark { i += 1 }
            guard i < track.distance.count else { break }
            let d0 = track.distance.cumulative[i - 1], d1 = track.distance.cumulative[i]
            let f = d1 > d0 ? (mark - d0) / (d1 - d0) : 1
            let x = xs[i - 1] + f * (xs[i] - xs[i - 1]), y = ys[i - 1] + f * (ys[i] - ys[i - 1])
            svg.circle(x, y, r: 9, fill: "#ffffff", stroke: "#3c4650", width: 1.5)
            svg.text(String(k), x: x, y: y + 3.5, size: k >= 100 ? 7.5 : 10, fill: "#1f2933", anchor: .middle,
                     weight: "bold")
            k += every
        }
    }

    private func marker(_ x: Double, _ y: Double, fill: String, label: String, into svg: inout SVGCanvas) {
        svg.circle(x, y, r: 11, fill: fill, stroke: "#ffffff", width: 3)
        svg.text(label, x: x, y: y + 4, size: 11, fill: "#ffffff", anchor: .middle, weight: "bold")
    }

    private func drawLegend(scale: SpeedColourScale, units: UnitSystem, labels: ChartLabels,
                            into svg: inout SVGCanvas) {
        let w = 236.0, h = 50.0, x = width - w - 12, y = height - h - 12
        svg.rect(x: x, y: y, width: w, height: h, fill: "#ffffff", radius: 8, extra: "fill-opacity=\"0.9\"")
        svg.text("\(labels.paceAxis.lowercased()) (\(ChartLabels.paceUnit(units)))", x: x + w / 2, y: y + 16, size: 11, fill: "#5b6773",
                 anchor: .middle)
        svg.rect(x: x + 52, y: y + 24, width: w - 104, height: 10, fill: "url(#speed)", radius: 5)
        svg.text(SVGRouteWriter.paceText(speed: scale.slow, units: units), x: x + 46, y: y + 33, size: 11,
                 fill: "#1f2933", anchor: .end)
        svg.text(SVGRouteWriter.paceText(speed: scale.fast, units: units), x: x + w - 46, y: y + 33, size: 11,
                 fill: "#1f2933", anchor: .start)
        svg.text(labels.slow, x: x + 52, y: y + 46, size: 9, fill: "#8a96a3")
        svg.text(labels.fast, x: x + w - 52, y: y + 46, size: 9, fill: "#8a96a3", anchor: .end)
    }

    private func drawScaleBar(units: UnitSystem, into svg: inout SVGCanvas) {
        // The longest "nice" length that fits in a fifth of the panel.
        let metric: [(Double, String)] = [(20, "20 m"), (50, "50 m"), (100, "100 m"), (200, "200 m"),
                                          (500, "500 m"), (1000, "1 km"), (2000, "2 km"), (5000, "5 km"),
                                          (10_000, "10 km"), (20_000, "20 km"), (50_000, "50 km")]
        let mile = 1609.344
        let imperial: [(Double, String)] = [(0.0125 * mile, "0.0125 mi"), (0.025 * mile, "0.025 mi"),
                                            (0.05 * mile, "0.05 mi"), (0.1 * mile, "0.1 mi"),
                                            (0.25 * mile, "0.25 mi"), (0.5 * mile, "0.5 mi"), (mile, "1 mi"),
                                            (2 * mile, "2 mi"), (5 * mile, "5 mi"), (10 * mile, "10 mi"),
                                            (20 * mile, "20 mi")]
        let choices = units == .metric ? metric : imperial
        let limit = width / 5
        let pick = choices.last { $0.0 * pixelsPerMetre <= limit } ?? choices[0]
        let barLength = pick.0 * pixelsPerMetre
        let x = 12.0, y = height - 12 - 36
        svg.rect(x: x, y: y, width: barLength + 24, height: 36, fill: "#ffffff", radius: 8,
                 extra: "fill-opacity=\"0.9\"")
        let bx = x + 12, by = y + 24
        svg.line(bx, by, bx + barLength, by, stroke: "#3c4650", width: 2)
        svg.line(bx, by - 5, bx, by + 1, stroke: "#3c4650", width: 2)
        svg.line(bx + barLength, by - 5, bx + barLength, by + 1, stroke: "#3c4650", width: 2)
        svg.text(pick.1, x: bx + barLength / 2, y: by - 8, size: 10, fill: "#3c4650", anchor: .middle)
    }
}
