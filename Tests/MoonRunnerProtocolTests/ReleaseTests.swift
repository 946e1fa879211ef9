import Foundation
import MoonRunnerProtocol
import Testing

@Suite("The release")
struct ReleaseTests {
    /// debian/changelog's newest entry, from this file's place in the repository.
    static let changelog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("debian/changelog")

    @Test("--version and VERSION say the upstream version of debian/changelog's newest entry")
    func agreesWithChangelog() throws {
        let text = try String(contentsOf: Self.changelog, encoding: .utf8)
        // "moonrunner (0.1.0-1) unstable; urgency=medium": [epoch:]upstream[-revision] (deb-changelog(5)).
        let first = try #require(text.split(separator: "\n").first)
        let open = try #require(first.firstIndex(of: "(")), close = try #require(first.firstIndex(of: ")"))
        var version = first[first.index(after: open)..<close]
        if let colon = version.firstIndex(of: ":") { version = version[version.index(after: colon)...] }
        if let dash = version.lastIndex(of: "-") { version = version[..<dash] }
        #expect(String(version) == MoonRunnerRelease.version)
        #expect(VersionReply().release == MoonRunnerRelease.version)
    }
}
