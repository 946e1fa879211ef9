import FoundationEssentials
import MoonRunnerCore

/// A workout's laps in GPX, which has none of its own: each lap (each step,
/// and the run after the last) is a `<trkseg>` of its own, more than one
/// when a pause splits it, and its last one ends with an `<extensions>`
/// holding the lap as Cluetrust's GPXDATA 1.0 `<gpxdata:lap>` (a published
/// mix-in schema for GPX 1.1, which pytrainer reads anywhere in a file) and
/// the step as `<moonrunner:step>` (its index as run, the file's step, the
/// round, intensity and name, which GPXDATA has no place for). gpxpy hands
/// both over as the segment's extensions; other readers see the segments.
/// Sessions without a workout are written as before.
struct GPXLaps {
    /// What the `<gpx>` element declares besides its own when there are laps.
    static let namespaces = " xmlns:gpxdata=\"http://www.cluetrust.com/XML/GPXDATA/1/0\""
        + " xmlns:moonrunner=\"urn:moonrunner:gpx:workout:1\""
    static let schemaLocation = " http://www.cluetrust.com/XML/GPXDATA/1/0 http://www.cluetrust.com/Schemas/gpxdata10.xsd"

    /// The lap each point ends, by point index; empty without a workout.
    private var endingAt: [Int: LapSummary] = [:]
    private var starts: Set<Int> = []

    init(_ session: ExportSession) {
        guard session.laps.contains(where: { $0.step != nil }) else { return }
        for lap in session.laps where !lap.points.isEmpty {
            starts.insert(lap.points.lowerBound)
            endingAt[lap.points.upperBound - 1] = lap
        }
    }

    var isEmpty: Bool { endingAt.isEmpty }

    /// True when point `i` begins a lap (and so a `<trkseg>`).
    func startsLap(_ i: Int) -> Bool { starts.contains(i) }

    /// The `<extensions>` that closes the last segment of a lap, when point `i` ends one.
    func writeEnd(at i: Int, session: ExportSession, into out: inout OutputBuffer) {
        guard let lap = endingAt[i] else { return }
        let points = session.points
        out.write("   <extensions>\n    <gpxdata:lap>\n     <gpxdata:index>")
        out.write(int: lap.number - 1)
        out.write("</gpxdata:index>\n")
        for (tag, k) in [("startPoint", lap.points.lowerBound), ("endPoint", lap.points.upperBound - 1)] {
            out.write(text: "     <gpxdata:\(tag) lat=\"")
            out.write(points[k].latitude, decimals: 7)
            out.write("\" lon=\"")
            out.write(points[k].longitude, decimals: 7)
            out.write("\"/>\n")
        }
        out.write("     <gpxdata:startTime>")
        out.write(isoTime: lap.startTime)
        out.write("</gpxdata:startTime>\n     <gpxdata:elapsedTime>")
        out.write(lap.elapsed, decimals: 1)
        out.write("</gpxdata:elapsedTime>\n     <gpxdata:calories>")
        out.write(int: max(0, Int(session.calories(of: lap).rounded())))
        out.write("</gpxdata:calories>\n     <gpxdata:distance>")
        out.write(lap.distance, decimals: 1)
        out.write("</gpxdata:distance>\n")
        let hr = session.hasHeartRate ? session.heartRateSummary(from: lap.startTime, to: lap.endTime) : nil
        if let average = ExportTrack.wholeBPM(hr?.averageBPM), let maximum = ExportTrack.wholeBPM(hr?.maxBPM) {
            // pytrainer's names for them, as in TCX.
            out.write("     <gpxdata:summary name=\"AverageHeartRateBpm\" kind=\"avg\">")
            out.write(int: average)
            out.write("</gpxdata:summary>\n     <gpxdata:summary name=\"MaximumHeartRateBpm\" kind=\"max\">")
            out.write(int: maximum)
            out.write("</gpxdata:summary>\n")
        }
        out.write("     <gpxdata:summary name=\"MaximumSpeed\" kind=\"max\">")
        out.write(lap.maxSpeed, decimals: 3)
        out.write("</gpxdata:summary>\n     <gpxdata:trigger kind=\"")
        out.write(text: Self.trigger(lap))
        out.write("\"/>\n     <gpxdata:intensity>")
        out.write(text: lap.step?.intensity.isBreak == true ? "rest" : "active")
        out.write("</gpxdata:intensity>\n    </gpxdata:lap>\n")
        if let step = lap.step {
            out.write("    <moonrunner:step index=\"")
            out.write(int: step.index)
            out.write("\" wkt_step_index=\"")
            out.write(int: step.wktStepIndex)
            out.write("\" repeat=\"")
            out.write(int: step.round)
            out.write("\" intensity=\"")
            out.write(text: step.intensity.rawValue)
            out.write("\"")
            if let name = step.name {
                out.write(" name=\"")
                out.write(xmlEscaped: name)
                out.write("\"")
            }
            out.write("/>\n")
        }
        out.write("   </extensions>\n")
    }

    /// GPXDATA's trigger: a step's own end by time or distance, else the wearer's lap key.
    private static func trigger(_ lap: LapSummary) -> String {
        guard lap.trigger == .workoutStep else { return "manual" }
        switch lap.step?.end {
        case .time: return "time"
        case .distance: return "distance"
        case .heartRateAbove, .heartRateBelow: return "hr"
        default: return "manual"
        }
    }
}
