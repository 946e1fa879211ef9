import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

@Suite("Export: the pictures one at a time, and the CSV read back")
struct SessionPicturesTests {
    let session = ExportFixture.session()

    @Test("reading the CSV export back gives the same points, stretches, distances and cadence")
    func csvRoundTrip() throws {
        let track = try CSVTrackReader.read(CSVWriter.write(session))
        let cadence = ExportTrack(session).cadence
        #expect(track.points.count == session.points.count)
        let cumulative = TrackDistance(points: session.points).cumulative
        for (i, (a, b)) in zip(track.points, session.points).enumerated() {
            // The CSV keeps 7 decimals of a degree (about 1 cm), 2 of a metre, milliseconds of time.
            #expect(abs(a.latitude - b.latitude) < 1e-7 && abs(a.longitude - b.longitude) < 1e-7)
            #expect(abs(a.time - b.time) < 0.001 && a.newSegment == b.newSegment)
            #expect(abs(a.distance - cumulative[i]) < 0.006)
        }
        #expect(zip(track.cadence, cadence).allSatisfy { abs($0 - $1) < 0.051 })
        // The cadence read back is what ExportTrack finds at each point, so the charts see the same.
        let again = ExportSession(id: 1, activity: .run, startTime: session.startTime, stats: session.stats,
                                  points: track.points, stepSeconds: track.stepSeconds)
        #expect(zip(ExportTrack(again).cadence, cadence).allSatisfy { abs($0 - $1) < 0.051 })
    }

    @Test("the heart rate reads back on the points that have one, and stays missing where the strap sent none")
    func csvHeartRate() throws {
        var s = session
        for i in s.points.indices { s.points[i].heartRate = i % 3 == 0 ? .nan : Double(120 + i % 40) }
        let track = try CSVTrackReader.read(CSVWriter.write(s))
        #expect(track.points.map { $0.heartRate.isNaN ? nil : $0.heartRate } == s.points.map { $0.heartRate.isNaN ? nil : $0.heartRate })
    }

    @Test("a CSV line that is not the writer's names its line", arguments: [
        ("time,lat,lon\n", 1),
        (CSVWriter.header + "\n2024-05-01T07:30:00Z,51.5,-0.16,,,0,,1,,gps\n2024-05-01T07:30:01Z,51.5,-0.16,,,1\n", 3),
        (CSVWriter.header + "\nyesterday,51.5,-0.16,,,0,,1,,gps\n", 2),
        (CSVWriter.header + "\n2024-05-01T07:30:00Z,north,-0.16,,,0,,1,,gps\n", 2),
    ])
    func csvErrors(_ text: String, _ line: Int) {
        #expect(throws: CSVTrackReader.Failure.self) { _ = try CSVTrackReader.read(Array(text.utf8)) }
        do {
            _ = try CSVTrackReader.read(Array(text.utf8))
        } catch {
            #expect(error.line == line, "\(error)")
        }
    }

    @Test("each picture is a standalone SVG that parses, sized for a phone, with its unit")
    func pictures() throws {
        let p = SessionPictures(session, units: .metric)
        for (svg, must) in [(p.routeMap(), "pace (min/km)"), (p.paceChart(), "Pace (min/km)"),
                            (p.elevationChart(), "Elevation (m)"), (p.cadenceChart(), "Cadence (spm)")] {
            #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 400.0 "))
            #expect(svg.contains(must), "\(must)")
            let parser = XMLParser(data: Data(svg.utf8))
            #expect(parser.parse(), "\(String(describing: parser.parserError))")
        }
        let imperial = SessionPictures(session, units: .imperial)
        #expect(imperial.elevationChart().contains("Elevation (ft)") && imperial.paceChart().contains("min/mi"))
    }

    @Test("the pictures speak the reader's language")
    func labels() {
        var zh = ChartLabels()
        zh.pace = "配速"
        zh.paceAxis = "配速"
        zh.distanceAxis = "距离"
        let svg = SessionPictures(session, units: .metric, labels: zh).paceChart()
        #expect(svg.contains(">配速<") && svg.contains("距离 (km)"))
    }

    @Test("a GPS outage is marked where the fix was lost and came back; a pause keeps its pause sign")
    func gpsLost() {
        var s = session
        // The fixture's pause becomes an outage: the GPS was lost while it lasted.
        let lost = s.pauses[0].start + 2, back = s.pauses[0].end - 1
        s.events.append(SessionEvent(kind: .gpsLost, time: lost, detectedAt: lost, cause: "gps", state: .recording))
        s.events.append(SessionEvent(kind: .gpsRegained, time: back, detectedAt: back, cause: "gps", state: .recording))
        let marked = SessionPictures(s).routeMap()
        #expect(marked.contains(">GPS lost<") && marked.contains("#e8870e"))
        let plain = SessionPictures(session).routeMap()
        #expect(!plain.contains(">GPS lost<"), "a pause alone is not a GPS outage")
    }

    @Test("the cadence chart says so when no steps were recorded")
    func noCadence() {
        let s = ExportSession(id: 3, activity: .walk, startTime: session.startTime, stats: session.stats,
                              points: session.points)
        #expect(SessionPictures(s).cadenceChart().contains("no steps recorded"))
        #expect(!String(decoding: SVGRouteWriter.write(s), as: UTF8.self).contains("Cadence (spm)"),
                "the exported picture has a cadence chart only with steps")
    }

    @Test("split bars: the faster split has the longer bar, every pace is written, a split without moving shows –")
    func splitBars() throws {
        let svg = SplitBars.svg([SplitBar(number: 1, distance: 1000, pace: 300, partial: false),
                                 SplitBar(number: 2, distance: 1000, pace: 270, partial: false),
                                 SplitBar(number: 3, distance: 420, pace: nil, partial: true)], units: .metric)
        #expect(svg.contains(">5:00<") && svg.contains(">4:30<") && svg.contains(">0.42 km<") && svg.contains(">–<"))
        let widths = svg.components(separatedBy: "<rect ").dropFirst().compactMap { r -> Double? in
            guard let w = r.range(of: "width=\"") else { return nil }
            return Double(r[w.upperBound...].prefix { $0 != "\"" })
        }
        #expect(widths.count == 2 && widths[1] > widths[0], "\(widths)")
    }
}
