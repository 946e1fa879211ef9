import FoundationEssentials
import MoonRunnerCore

/// One row of the split chart: a km (or mile) and its moving pace.
public struct SplitBar: Sendable, Equatable {
    /// 1-based split number.
    public var number: Int
    /// Metres in the split (less than a unit for the last, partial one).
    public var distance: Double
    /// Seconds per km (or mile) over its moving time; nil when not moving.
    public var pace: Double?
    public var partial: Bool

    public init(number: Int, distance: Double, pace: Double?, partial: Bool) {
        self.number = number
        self.distance = distance
        self.pace = pace
        self.partial = partial
    }
}

/// The splits as horizontal bars, one row per km (or mile): the longer the
/// bar the faster the split, coloured like the route (red slow, green fast,
/// relative to this session's own splits), the pace written at its end.
/// Bars start from a common floor at 1.25 × the slowest pace so that the
/// differences a runner cares about (seconds per km) are visible.
public enum SplitBars {
    static let rowHeight = 26.0
    static let labelWidth = 56.0
    static let paceWidth = 52.0

    public static func svg(_ splits: [SplitBar], units: UnitSystem, labels: ChartLabels = .english,
                           width: Double = SessionPictures.width) -> String {
        let height = max(1, Double(splits.count)) * rowHeight + 8
        var svg = SVGCanvas(capacity: 512 + splits.count * 320)
        svg.out.write("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ")
        svg.number(width)
        svg.out.write(" ")
        svg.number(height)
        svg.out.write("\" width=\"")
        svg.number(width)
        svg.out.write("\" height=\"")
        svg.number(height)
        svg.out.write("\" role=\"img\" font-family=\"")
        svg.out.write(text: SVGCanvas.font)
        svg.out.write("\">\n<title>")
        svg.out.write(xmlEscaped: "\(labels.pace) (\(ChartLabels.paceUnit(units)))")
        svg.out.write("</title>\n")
        let speeds = splits.map { s in s.pace.map { units.metresPerUnit / $0 } ?? .nan }
        let known = speeds.filter(\.isFinite)
        let scale = SpeedColourScale(slow: known.min() ?? 0, fast: known.max() ?? 0)
        // Speeds shown from a floor below the slowest split up to the fastest.
        let floor = (known.min() ?? 0) / 1.25, top = known.max() ?? 1
        let barSpace = width - labelWidth - paceWidth - 8
        for (k, split) in splits.enumerated() {
            let y = Double(k) * rowHeight + 4
            let label = split.partial
                ? Formatting.distance(split.distance, units) : String(split.number)
            svg.text(label, x: labelWidth - 8, y: y + 17, size: split.partial ? 11 : 13, fill: "#3c4650", anchor: .end,
                     weight: "bold")
            guard speeds[k].isFinite else {
                svg.text("–", x: labelWidth + 4, y: y + 17, size: 13, fill: "#8a96a3")
                continue
            }
            let fraction = top > floor ? (speeds[k] - floor) / (top - floor) : 1
            let length = max(6, min(1, fraction) * barSpace)
            svg.rect(x: labelWidth, y: y + 3, width: length, height: rowHeight - 8,
                     fill: scale.colour(for: speeds[k]).hex, radius: 3)
            svg.text(SVGRouteWriter.paceText(speed: speeds[k], units: units), x: labelWidth + length + 6, y: y + 17,
                     size: 13, fill: "#1f2933", weight: "bold")
        }
        svg.out.write("</svg>\n")
        return String(decoding: svg.out.bytes, as: UTF8.self)
    }
}
