import Foundation
import Testing
@testable import MoonRunnerExport

@Suite("Export: every format from one session")
struct ExportSamplesTests {
    @Test("every format writes something, and samples are kept when asked", arguments: ExportFormat.allCases)
    func everyFormat(_ format: ExportFormat) {
        let session = ExportFixture.session()
        let data = format.export(session)
        #expect(data.count > 1000)
        keepSample(data, name: "session-12.\(format.fileExtension)")
    }
}
