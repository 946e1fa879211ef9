import Foundation
import Testing
@testable import MoonRunnerExport

/// A 10-hour session through every writer. How fast each format is written is
/// a figure of `make bench` (Tests/Tools/web_bench.py times `moonrunner export`
/// of a 10-hour stored session), not of a unit test on a shared machine.
@Suite("Export: a 10-hour session")
struct LongSessionExportTests {
    @Test("each format writes every point of a 10-hour 1 Hz session", arguments: ExportFormat.allCases)
    func tenHours(_ format: ExportFormat) {
        let session = ExportFixture.tenHours()
        #expect(session.points.count > 35_000)
        let data = format.export(session)
        keepSample(data, name: "ten-hours.\(format.fileExtension)")
        // The smallest of the six is the SVG picture (a simplified line); every
        // other format carries each of the 36 001 points in at least ~10 bytes.
        let floor = format == .svg ? 10_000 : 10 * session.points.count
        #expect(data.count > floor, "\(format.rawValue): \(data.count) bytes")
    }
}
