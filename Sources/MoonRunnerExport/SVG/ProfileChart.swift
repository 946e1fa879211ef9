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
        header(labels.pace, detail: "\(unit), \(labels.paceHint)", top: top, into: &svg)
        let bottom = top + height
        drawFrame(top: top, bottom: bottom, into: &svg)
        yAxisTitle("\(labels.paceAxis) (\(unit))", top: top, bottom: bottom, into: &svg)
        let points = session.points
        let binCount = min(180, max(10, points.count / 3))
        guard total > 0, points.count > 1 else {
            svg.text(labels.noDistance, x: (left + right) / 2, y: (top + bottom) / 2, size: 13,
                     fill: "#8a96a3", anchor: .middle)
            xAxis(bottom: bottom, into: &svg)
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
        guard !sorted.isEmpty else {
            xAxis(bottom: bottom, into: &svg)
            return
        }
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
            let ay = y(average)
            svg.line(left, ay, right, ay, stroke: "#1f2933", width: 1.2, extra: "stroke-dasharray=\"6 4\"")
            let label = "\(labels.average) \(SVGRouteWriter.paceText(speed: average, units: units))"
            let labelWidth = SVGCanvas.approximateWidth(label, size: 11) * 1.06 + 12
            svg.rect(x: right - labelWidth - 4, y: ay - 19, width: labelWidth, height: 16, fill: "#1f2933",
                     radius: 4)
            svg.text(label, x: right - 4 - labelWidth / 2, y: ay - 7, size: 11, fill: "#ffffff", anchor: .middle,
                     weight: "bold")
        }
        xAxis(bottom: bottom, into: &svg)
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
            let ty = y(unit / pace)
            svg.line(left, ty, right, ty, stroke: "#e3e8ee", width: 1)
            let s = Int(pace.rounded())
            svg.text("\(s / 60):\((s % 60).zeroPadded(2))", x: left - 8, y: ty + 4, size: 11,
                     fill: "#5b6773", anchor: .end)
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
        header(labels.elevation, detail: detail, top: top, into: &svg)
        let bottom = top + height
        drawFrame(top: top, bottom: bottom, into: &svg)
        yAxisTitle("\(labels.elevationAxis) (\(unit))", top: top, bottom: bottom, into: &svg)
        defer { xAxis(bottom: bottom, into: &svg) }

        let binCount = Int(plotWidth / 3)
        var sums = [Double](repeating: 0, count: binCount)
        var counts = [Double](repeating: 0, count: binCount)
        for i in points.indices where points[i].altitude.isFinite {
            let b = total > 0 ? min(binCount - 1, Int(track.distance.cumulative[i] / total * Double(binCount))) : 0
            sums[b] += points[i].altitude / perUnit
            counts[b] += 1
        }
        guard total > 0, counts.contains(where: { $0 > 0 }) else {
            svg.text(labels.noElevation, x: (left + right) / 2, y: (top + bottom) / 2, size: 13,
                     fill: "#8a96a3", anchor: .middle)
            return
        }
        // Empty bins (fast movement, gaps) take the value of the bin before, or after at the start.
        var altitudes = [Double](repeating: .nan, count: binCount)
        for b in 0..<binCount where counts[b] > 0 { altitudes[b] = sums[b] / counts[b] }
        let firstKnown = altitudes.first(where: \.isFinite) ?? 0
        var carry = firstKnown
        for b in 0..<binCount {
            if altitudes[b].isFinite { carry = altitudes[b] } else { altitudes[b] = carry }
        }
        var lo = altitudes.min() ?? 0, hi = altitudes.max() ?? 0
        if hi - lo < 20 {
            let mid = (hi + lo) / 2
            lo = mid - 10
            hi = mid + 10
        }
        let step = [1.0, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000].first { (hi - lo) / $0 <= 4 } ?? 1000
        lo = (lo / step).rounded(.down) * step
        hi = (hi / step).rounded(.up) * step
        func y(_ a: Double) -> Double { bottom - (a - lo) / (hi - lo) * height }

        var tick = lo
        while tick <= hi + 1e-9 {
            let ty = y(tick)
            svg.line(left, ty, right, ty, stroke: "#e3e8ee", width: 1)
            svg.text(tick.fixed(0), x: left - 8, y: ty + 4, size: 11, fill: "#5b6773", anchor: .end)
            tick += step
        }
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
        header(labels.cadence, detail: unit, top: top, into: &svg)
        let bottom = top + height
        drawFrame(top: top, bottom: bottom, into: &svg)
        yAxisTitle("\(labels.cadenceAxis) (\(unit))", top: top, bottom: bottom, into: &svg)
        defer { xAxis(bottom: bottom, into: &svg) }

        let binCount = max(1, Int(plotWidth / 3))
        var sums = [Double](repeating: 0, count: binCount)
        var counts = [Double](repeating: 0, count: binCount)
        for i in track.cadence.indices where track.cadence[i] > 0 {
            let b = total > 0 ? min(binCount - 1, Int(track.distance.cumulative[i] / total * Double(binCount))) : 0
            sums[b] += track.cadence[i]
            counts[b] += 1
        }
        guard total > 0, track.hasCadence, counts.contains(where: { $0 > 0 }) else {
            svg.text(labels.noCadence, x: (left + right) / 2, y: (top + bottom) / 2, size: 13,
                     fill: "#8a96a3", anchor: .middle)
            return
        }
        var values = [Double](repeating: .nan, count: binCount)
        for b in 0..<binCount where counts[b] > 0 { values[b] = sums[b] / counts[b] }
        let known = values.filter(\.isFinite)
        var lo = known.min() ?? 0, hi = known.max() ?? 0
        // At least 40 spm tall, so a steady cadence is not blown up into noise.
        if hi - lo < 40 {
            let mid = (hi + lo) / 2
            lo = mid - 20
            hi = mid + 20
        }
        let step = [5.0, 10, 20, 25, 50, 100].first { (hi - lo) / $0 <= 4 } ?? 100
        lo = max(0, (lo / step).rounded(.down) * step)
        hi = (hi / step).rounded(.up) * step
        func y(_ c: Double) -> Double { bottom - (c - lo) / (hi - lo) * height }

        var tick = lo
        while tick <= hi + 1e-9 {
            let ty = y(tick)
            svg.line(left, ty, right, ty, stroke: "#e3e8ee", width: 1)
            svg.text(String(Int(tick.rounded())), x: left - 8, y: ty + 4, size: 11, fill: "#5b6773", anchor: .end)
            tick += step
        }
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
        let ay = y(average)
        svg.line(left, ay, right, ay, stroke: "#1f2933", width: 1.2, extra: "stroke-dasharray=\"6 4\"")
        let label = "\(labels.average) \(Int(average.rounded())) \(unit)"
        let labelWidth = SVGCanvas.approximateWidth(label, size: 11) * 1.06 + 12
        svg.rect(x: right - labelWidth - 4, y: ay - 19, width: labelWidth, height: 16, fill: "#1f2933", radius: 4)
        svg.text(label, x: right - 4 - labelWidth / 2, y: ay - 7, size: 11, fill: "#ffffff", anchor: .middle,
                 weight: "bold")
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
