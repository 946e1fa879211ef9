import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

@Suite("Export: TCX")
struct TCXExportTests {
    let session = ExportFixture.session()

    /// Text of every `<name>` element, in order (Foundation's XML parser, not ours).
    final class Collector: NSObject, XMLParserDelegate {
        let wanted: Set<String>
        var values: [String: [String]] = [:]
        var stack: [String] = []
        var text = ""
        init(_ wanted: Set<String>) { self.wanted = wanted }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            stack.append(name)
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let parent = stack.dropLast().last ?? ""
            let key = "\(parent)/\(name)"
            if wanted.contains(key) { values[key, default: []].append(text.trimmingCharacters(in: .whitespaces)) }
            stack.removeLast()
            text = ""
        }
    }

    @Test("laps carry every required field in schema order; sums match the session")
    func structure() throws {
        let data = TCXWriter.write(session)
        let collector = Collector(["Lap/TotalTimeSeconds", "Lap/DistanceMeters", "Lap/Calories", "Lap/Intensity",
                                   "Lap/TriggerMethod", "Lap/MaximumSpeed", "ns3:LX/ns3:Steps",
                                   "Trackpoint/DistanceMeters", "Trackpoint/Cadence", "ns3:TPX/ns3:RunCadence",
                                   "Activity/Id"])
        let parser = XMLParser(data: data)
        parser.delegate = collector
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        let v = collector.values
        #expect(v["Lap/TotalTimeSeconds"]?.count == 3)
        for key in ["Lap/DistanceMeters", "Lap/Calories", "Lap/Intensity", "Lap/TriggerMethod", "Lap/MaximumSpeed"] {
            #expect(v[key]?.count == 3, "\(key)")
        }
        let lapTime = (v["Lap/TotalTimeSeconds"] ?? []).compactMap(Double.init).reduce(0, +)
        #expect(abs(lapTime - session.moving) < 0.5)
        let lapDistance = (v["Lap/DistanceMeters"] ?? []).compactMap(Double.init).reduce(0, +)
        #expect(relativeError(lapDistance, SessionTruth(session).distance) < 0.0001)
        let steps = (v["ns3:LX/ns3:Steps"] ?? []).compactMap(Int.init).reduce(0, +)
        #expect(steps == session.totalSteps)
        let calories = (v["Lap/Calories"] ?? []).compactMap(Int.init).reduce(0, +)
        #expect(abs(Double(calories) - session.calories) < 3 && calories > 300)
        // Cumulative distance never goes down and ends at the track length.
        let cumulative = (v["Trackpoint/DistanceMeters"] ?? []).compactMap(Double.init)
        #expect(cumulative.count == session.points.count)
        #expect(zip(cumulative, cumulative.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(abs((cumulative.last ?? 0) - SessionTruth(session).distance) < 0.01)
        #expect(v["Trackpoint/Cadence"]?.count == session.points.count)
        #expect(v["ns3:TPX/ns3:RunCadence"]?.first == "80")
        #expect(v["Activity/Id"] == ["2024-05-01T07:30:00Z"])

        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("<Activity Sport=\"Running\">"))
        #expect(text.contains("xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\""))
        #expect(text.contains("xmlns:ns3=\"http://www.garmin.com/xmlschemas/ActivityExtension/v2\""))
        // ActivityLap_t is an xsd:sequence: the required fields must come in this order.
        let order = ["<TotalTimeSeconds>", "<DistanceMeters>", "<MaximumSpeed>", "<Calories>", "<Intensity>",
                     "<Cadence>", "<TriggerMethod>", "<Track>", "<Extensions><ns3:LX>"]
        let lap = try #require(text.range(of: "<Lap ").map { String(text[$0.lowerBound...]) })
        let positions = order.compactMap { lap.range(of: $0)?.lowerBound }
        #expect(positions.count == order.count && positions == positions.sorted())
        // The lap with the pause holds two tracks (one per stretch).
        #expect(text.components(separatedBy: "<Track>").count - 1 == 4)
    }

    @Test("gpsbabel reads the TCX back: points, duration and distance within 0.1 %")
    func gpsbabel() throws {
        let dir = try makeScratchDirectory("tcx")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("s.tcx")
        try TCXWriter.write(session).write(to: file)
        let points = try Gpsbabel.trackPoints(file, input: "gtrnctr")
        let truth = SessionTruth(session)
        #expect(points.count == truth.points)
        let span = (points.last?.time ?? 0) - (points.first?.time ?? 0)
        #expect(relativeError(span, truth.span) < 0.001, "gpsbabel duration \(span) s vs \(truth.span) s")
        let distance = Gpsbabel.distance(points)
        #expect(relativeError(distance, truth.distance) < 0.001, "gpsbabel distance \(distance) m vs \(truth.distance) m")
        #expect(points.compactMap(\.altitude).count == truth.points)
        #expect(points.compactMap(\.cadence).allSatisfy { $0 >= 70 && $0 <= 90 })
    }

    @Test("a walk is Sport Other")
    func walk() {
        var shape = ExportFixture.Shape()
        shape.activity = .walk
        let text = String(decoding: TCXWriter.write(ExportFixture.session(shape)), as: UTF8.self)
        #expect(text.contains("<Activity Sport=\"Other\">"))
    }
}
