import Foundation
import Testing
@testable import MoonRunnerUpload

@Suite("Upload: the upload: section of moonrunner.yaml")
struct UploadConfigTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("the shipped config file documents every upload key, and its values are the defaults")
    func shippedFile() throws {
        let path = Self.root.appendingPathComponent("config/moonrunner.yaml").path
        #expect(try UploadConfigReader.load(path: path) == UploadSettings())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for key in UploadConfigReader.knownKeys {
            #expect(text.contains("\(key.split(separator: ".").last ?? ""):"), "config/moonrunner.yaml does not document \(key)")
        }
    }

    @Test("moonrunner.yaml(5) documents every upload key and no key the reader does not know")
    func manPage() throws {
        let text = try String(contentsOfFile: Self.root.appendingPathComponent("man/moonrunner.yaml.5").path, encoding: .utf8)
        let documented = Set(text.split(separator: "\n").filter { $0.hasPrefix(".It Sy upload.") }.map { String($0.dropFirst(7)) })
        let known = Set(UploadConfigReader.knownKeys.filter { $0.hasPrefix("upload.") })
        #expect(documented == known, "missing: \(known.subtracting(documented)), unknown: \(documented.subtracting(known))")
    }
}
