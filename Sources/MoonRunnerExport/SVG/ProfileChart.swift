import FoundationEssentials
import MoonRunnerCore

/// The charts under the map, sharing one distance axis: pace as bars
/// coloured like the route (taller is faster), elevation as a filled
/// profile and cadence as a line. Values are binned to the chart width,
/// which smooths 1 Hz noise and keeps a 10-hour session as small as a
/// 10-minute one. The exported picture and the web app's session page draw
/// with this one type (the web app at a phone's width, in its language).
struct ProfileChart {
    let left: Double
    let right: Double
    let units: UnitSystem
    /// Metres along the track.
    let total: Double
    var labels = ChartLabels.english
    /// Where the titles and the vertical axis titles start (left of the tick labels).
    var titleX: Double

    init(left: Double, right: Double, units: UnitSystem, total: Double, labels: ChartLabels = .english,
         titleX: Double? = nil) {
        self.left = left
        self.right = right
        self.units = units
        self.total = total
        self.labels = labels
        self.titleX = titleX ?? left - 64
    }

    var plotWidth: Double { right - left }

    func x(_ metres: Double) -> Double {
        total > 0 ? left + metres / total * plotWidth : left
    }

    // MARK: Pace

    func drawPace(session: ExportSession, track: ExportTrack, paused: PausedTime, scale: SpeedColourScale,
                  top: Double, height: Double, into svg: inout SVGCanvas) {
        let unit = ChartLabels.paceUnit(units)
        let bottom = panel(labels.pace, detail: "\(unit), \(labels.paceHint)", axis: "\(labels.paceAxis) (\(unit))",
                           top: top, height: height, into: &svg)
        defer { xAxis(bottom: bottom, into: &svg) }
        let points = session.points
        let binCount = min(180, max(10, points.count / 3))
        guard total > 0, points.count > 1 else {
            noData(labels.noDistance, top: top, bottom: bottom, into: &svg)
            return
        }
        // Distance and moving time per bin, each step credited to the bin of its middle.
        var metres = [Double](repeating: 0, count: binCount)
        var seconds = [Double](repeating: 0, count: binCount)
        let binLength = total / Double(binCount)
        for i in points.indices.dropFirst() where !track.distance.startsStretch(i) {
            let d0 = track.distance.cumulative[i - 1], d1 = track.distance.cumulative[i]
            let b = min(binCount - 1, Int((d0 + d1) / 2 / binLength))
            metres[b] += d1 - d0
            seconds[b] += paused.moving(from: points[i - 1].time, to: points[i].time)
        }
        let speeds = (0..<binCount).map { seconds[$0] > 0 && metres[$0] > 0 ? metres[$0] / seconds[$0] : Double.nan }
        let sorted = speeds.filter(\.isFinite).sorted()
        guard !sorted.isEmpty else { return }
        let lo = SpeedColourScale.percentile(sorted, 0.02), hi = SpeedColourScale.percentile(sorted, 0.98)
        let spread = max(hi - lo, 0.5)
        let yMin = max(0, lo - 0.35 * spread), yMax = hi + 0.15 * spread
        func y(_ speed: Double) -> Double {
            bottom - min(1, max(0, (speed - yMin) / (yMax - yMin))) * height
        }

        paceTicks(yMin: yMin, yMax: yMax, y: y, into: &svg)
        let barWidth = plotWidth / Double(binCount)
        let gap = barWidth > 3 ? 1.0 : 0
        for b in 0..<binCount where speeds[b].isFinite {
            let top = y(speeds[b])
            svg.rect(x: left + Double(b) * barWidth, y: top, width: barWidth - gap, height: bottom - top,
                     fill: scale.colour(for: speeds[b]).hex)
        }
        let moving = session.moving
        if moving > 0 {
            let average = session.distance / moving
            averageLine(at: y(average), label: "\(labels.average) \(SVGRouteWriter.paceText(speed: average, units: units))",
                        into: &svg)
        }
    }

    /// Pace labels at round paces (every 15 s … 5 min per unit).
    private func paceTicks(yMin: Double, yMax: Double, y: (Double) -> Double, into svg: inout SVGCanvas) {
        let unit = units.metresPerUnit
        let fastest = unit / yMax
        let slowest = yMin > 0.05 ? min(unit / yMin, 60 * 60) : 60 * 60
        let step = [15.0, 30, 60, 120, 300, 600].first { (slowest - fastest) / $0 <= 5 } ?? 600
        var pace = (fastest / step).rounded(.up) * step
        var drawn = 0
        while pace <= slowest && drawn < 8 {
            let s = Int(pace.rounded())
            gridLine(at: y(unit / pace), label: "\(s / 60):\((s % 60).zeroPadded(2))", into: &svg)
            pace += step
            drawn += 1
        }
    }

    // MARK: Elevation

    func drawElevation(session: ExportSession, track: ExportTrack, top: Double, height: Double,
                       into svg: inout SVGCanvas) {
        let points = session.points
        let perUnit = ChartLabels.metresPerHeightUnit(units), unit = ChartLabels.heightUnit(units)
        let gain = session.stats.elevationGain / perUnit, loss = session.stats.elevationLoss / perUnit
        let detail = gain > 0 || loss > 0
            ? "\(labels.climb) +\(gain.fixed(0)) \(unit) · \(labels.descent) −\(loss.fixed(0)) \(unit)" : ""
        let bottom = panel(labels.elevation, detail: detail, axis: "\(labels.elevationAxis) (\(unit))",
                           top: top, height: height, into: &svg)
        defer { xAxis(bottom: bottom, into: &svg) }

        let binCount = Int(plotWidth / 3)
        let means = binnedMeans(binCount, track: track, over: points.indices) { i in
            points[i].altitude.isFinite ? points[i].altitude / perUnit : nil
        }
        guard total > 0, var altitudes = means else {
            noData(labels.noElevation, top: top, bottom: bottom, into: &svg)
            return
        }
        // Empty bins (fast movement, gaps) take the value of the bin before, or after at the start.
        var carry = altitudes.first(where: \.isFinite) ?? 0
        for b in 0..<binCount {
            if altitudes[b].isFinite { carry = altitudes[b] } else { altitudes[b] = carry }
        }
        let axis = ValueAxis(lo: altitudes.min() ?? 0, hi: altitudes.max() ?? 0, minimumSpan: 20,
                             steps: [1.0, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000])
        func y(_ a: Double) -> Double { bottom - axis.fraction(a) * height }
        valueTicks(axis, y: y, label: { $0.fixed(0) }, into: &svg)
        let binWidth = plotWidth / Double(binCount)
        svg.out.write("<path fill=\"url(#ground)\" stroke=\"none\" d=\"M")
        svg.point(left, bottom)
        for b in 0..<binCount {
            svg.out.write(" L")
            svg.point(left + (Double(b) + 0.5) * binWidth, y(altitudes[b]))
        }
        svg.out.write(" L")
        svg.point(right, bottom)
        svg.out.write(" Z\"/>\n<polyline fill=\"none\" stroke=\"#3d6a94\" stroke-width=\"2\" stroke-linejoin=\"round\" points=\"")
        for b in 0..<binCount {
            if b > 0 { svg.out.write(" ") }
            svg.point(left + (Double(b) + 0.5) * binWidth, y(altitudes[b]))
        }
        svg.out.write("\"/>\n")
    }

    // MARK: Cadence

    /// Steps per minute over distance: the mean of each bin's points with a
    /// cadence (points without steps near them, at a stop, are left out), a
    /// line over the bins that have one, and the session's average dashed.
    func drawCadence(session: ExportSession, track: ExportTrack, top: Double, height: Double,
                     into svg: inout SVGCanvas) {
        let unit = labels.stepsPerMinute
        let bottom = panel(labels.cadence, detail: unit, axis: "\(labels.cadenceAxis) (\(unit))",
                           top: top, height: height, into: &svg)
        defer { xAxis(bottom: bottom, into: &svg) }

        let binCount = max(1, Int(plotWidth / 3))
        let means = binnedMeans(binCount, track: track, over: track.cadence.indices) { i in
            track.cadence[i] > 0 ? track.cadence[i] : nil
        }
        guard total > 0, track.hasCadence, let values = means else {
            noData(labels.noCadence, top: top, bottom: bottom, into: &svg)
            return
        }
        let known = values.filter(\.isFinite)
        // At least 40 spm tall, so a steady cadence is not blown up into noise.
        let axis = ValueAxis(lo: known.min() ?? 0, hi: known.max() ?? 0, minimumSpan: 40,
                             steps: [5.0, 10, 20, 25, 50, 100], floor: 0)
        func y(_ c: Double) -> Double { bottom - axis.fraction(c) * height }
        valueTicks(axis, y: y, label: { String(Int($0.rounded())) }, into: &svg)
        let binWidth = plotWidth / Double(binCount)
        // One polyline per run of bins with a cadence: a stop leaves a gap, not a drop to zero.
        var b = 0
        while b < binCount {
            guard values[b].isFinite else {
                b += 1
                continue
            }
            svg.out.write("<polyline fill=\"none\" stroke=\"#7b4fa6\" stroke-width=\"2\" stroke-linejoin=\"round\" points=\"")
            var first = true
            while b < binCount, values[b].isFinite {
                if !first { svg.out.write(" ") }
                svg.point(left + (Double(b) + 0.5) * binWidth, y(values[b]))
                first = false
                b += 1
            }
            svg.out.write("\"/>\n")
        }
        let average = known.reduce(0, +) / Double(known.count)
        averageLine(at: y(average), label: "\(labels.average) \(Int(average.rounded())) \(unit)", into: &svg)
    }

    // MARK: What the charts share

    /// A vertical scale over `lo...hi`, widened to `minimumSpan` and rounded out to
    /// whole steps (the first of `steps` giving at most four, not below `floor`).
    private struct ValueAxis {
        /// The values at the chart's bottom and top edges, and between grid lines.
        let lo: Double
        let hi: Double
        let step: Double

        init(lo: Double, hi: Double, minimumSpan: Double, steps: [Double], floor: Double? = nil) {
            var lo = lo, hi = hi
            if hi - lo < minimumSpan {
                let mid = (hi + lo) / 2
                lo = mid - minimumSpan / 2
                hi = mid + minimumSpan / 2
            }
            let step = steps.first { (hi - lo) / $0 <= 4 } ?? steps.last ?? 1
            lo = (lo / step).rounded(.down) * step
            if let floor { lo = max(floor, lo) }
            self.lo = lo
            self.hi = (hi / step).rounded(.up) * step
            self.step = step
        }

        /// Where `value` lies from the bottom (0) to the top (1).
        func fraction(_ value: Double) -> Double { (value - lo) / (hi - lo) }
    }

    /// The mean of the values in each of `count` bins of distance (NaN where a bin has none),
    /// nil when no bin has one. `value(i)` is point i's value, nil to leave the point out.
    private func binnedMeans(_ count: Int, track: ExportTrack, over indices: Range<Int>,
                             value: (Int) -> Double?) -> [Double]? {
        var sums = [Double](repeating: 0, count: count)
        var counts = [Double](repeating: 0, count: count)
        for i in indices {
            guard let v = value(i) else { continue }
            let b = total > 0 ? min(count - 1, Int(track.distance.cumulative[i] / total * Double(count))) : 0
            sums[b] += v
            counts[b] += 1
        }
        guard counts.contains(where: { $0 > 0 }) else { return nil }
        var means = [Double](repeating: .nan, count: count)
        for b in 0..<count where counts[b] > 0 { means[b] = sums[b] / counts[b] }
        return means
    }

    /// A chart's title, frame and vertical axis title; its bottom edge.
    private func panel(_ title: String, detail: String, axis: String, top: Double, height: Double,
                       into svg: inout SVGCanvas) -> Double {
        header(title, detail: detail, top: top, into: &svg)
        let bottom = top + height
        drawFrame(top: top, bottom: bottom, into: &svg)
        yAxisTitle(axis, top: top, bottom: bottom, into: &svg)
        return bottom
    }

    /// What a chart says in its middle when there is nothing to draw.
    private func noData(_ message: String, top: Double, bottom: Double, into svg: inout SVGCanvas) {
        svg.text(message, x: (left + right) / 2, y: (top + bottom) / 2, size: 13, fill: "#8a96a3", anchor: .middle)
    }

    /// The session's average, dashed across the chart with its value in a dark box at the right.
    private func averageLine(at ay: Double, label: String, into svg: inout SVGCanvas) {
        svg.line(left, ay, right, ay, stroke: "#1f2933", width: 1.2, extra: "stroke-dasharray=\"6 4\"")
        let labelWidth = SVGCanvas.approximateWidth(label, size: 11) * 1.06 + 12
        svg.rect(x: right - labelWidth - 4, y: ay - 19, width: labelWidth, height: 16, fill: "#1f2933", radius: 4)
        svg.text(label, x: right - 4 - labelWidth / 2, y: ay - 7, size: 11, fill: "#ffffff", anchor: .middle,
                 weight: "bold")
    }

    /// Grid lines and labels at every step of `axis`.
    private func valueTicks(_ axis: ValueAxis, y: (Double) -> Double, label: (Double) -> String,
                            into svg: inout SVGCanvas) {
        var tick = axis.lo
        while tick <= axis.hi + 1e-9 {
            gridLine(at: y(tick), label: label(tick), into: &svg)
            tick += axis.step
        }
    }

    /// A horizontal grid line at `ty`, labelled left of the frame.
    private func gridLine(at ty: Double, label: String, into svg: inout SVGCanvas) {
        svg.line(left, ty, right, ty, stroke: "#e3e8ee", width: 1)
        svg.text(label, x: left - 8, y: ty + 4, size: 11, fill: "#5b6773", anchor: .end)
    }

    // MARK: Axes

    private func header(_ title: String, detail: String, top: Double, into svg: inout SVGCanvas) {
        svg.text(title, x: titleX, y: top - 12, size: 15, fill: "#1f2933", weight: "bold")
        guard !detail.isEmpty else { return }
        svg.text(detail, x: titleX + SVGCanvas.approximateWidth(title, size: 15) * 1.05 + 8, y: top - 12, size: 12,
                 fill: "#8a96a3")
    }

    private func drawFrame(top: Double, bottom: Double, into svg: inout SVGCanvas) {
        svg.rect(x: left, y: top, width: plotWidth, height: bottom - top, fill: "#ffffff",
                 extra: "stroke=\"#e3e8ee\"")
    }

    private func yAxisTitle(_ title: String, top: Double, bottom: Double, into svg: inout SVGCanvas) {
        let cx = titleX + 12, cy = (top + bottom) / 2
        svg.text(title, x: cx, y: cy, size: 11, fill: "#5b6773", anchor: .middle,
                 extra: "transform=\"rotate(-90 \(cx.fixed(1)) \(cy.fixed(1)))\"")
    }

    /// Distance ticks at round numbers of km (mi), and the axis title.
    private func xAxis(bottom: Double, into svg: inout SVGCanvas) {
        svg.line(left, bottom, right, bottom, stroke: "#8a96a3", width: 1)
        let length = total / units.metresPerUnit
        let step = [0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 25, 50].first { length / $0 <= 10 } ?? 100
        var tick = 0.0
        while tick <= length + 1e-9 {
            let tx = x(tick * units.metresPerUnit)
            svg.line(tx, bottom, tx, bottom + 5, stroke: "#8a96a3", width: 1)
            let label = tick.fixed(step < 1 ? (step < 0.25 ? 1 : 2) : 0)
            svg.text(label, x: tx, y: bottom + 18, size: 11, fill: "#5b6773", anchor: .middle)
            tick += step
        }
        svg.text("\(labels.distanceAxis) (\(units.distanceSymbol))", x: (left + right) / 2, y: bottom + 36, size: 11,
                 fill: "#5b6773", anchor: .middle)
    }
}
