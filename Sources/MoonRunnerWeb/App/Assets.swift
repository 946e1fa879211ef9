import Foundation

/// The templates and static files, compiled into the binary by SwiftPM
/// (`resources: [.embedInCode(...)]`): `make run`, the tests and an install
/// in /usr/bin all use the very same bytes, with no bundle to find at run
/// time. Static files are gzipped once, at first use.
public enum Assets {
    /// Every template by the name pages render it with.
    static let templates: [(String, String)] = [
        ("layout", PackageResources.layout_mustache), ("figure", PackageResources.figure_mustache),
        ("live", PackageResources.live_mustache), ("sessions", PackageResources.sessions_mustache),
        ("session", PackageResources.session_mustache), ("courses", PackageResources.courses_mustache),
        ("course", PackageResources.course_mustache), ("workouts", PackageResources.workouts_mustache),
        ("badges", PackageResources.badges_mustache), ("settings", PackageResources.settings_mustache),
        ("pair", PackageResources.pair_mustache), ("message", PackageResources.message_mustache),
        ("uploads", PackageResources.uploads_mustache),
    ].map { ($0.0, String(decoding: $0.1, as: UTF8.self)) }

    /// A static file: its bytes, gzipped bytes and media type.
    public struct File: Sendable {
        public let bytes: [UInt8]
        public let gzipped: [UInt8]?
        public let mediaType: String
    }

    /// `/static/NAME`: the only names served; nothing is looked up on disk.
    public static let files: [String: File] = {
        var out: [String: File] = [:]
        for (name, bytes, type) in [
            ("site.css", PackageResources.site_css, "text/css; charset=utf-8"),
            ("app.js", PackageResources.app_js, "text/javascript; charset=utf-8"),
            ("map.js", PackageResources.map_js, "text/javascript; charset=utf-8"),
            ("icon.svg", PackageResources.icon_svg, "image/svg+xml"),
        ] {
            out[name] = File(bytes: bytes, gzipped: Gzip.compress(bytes, level: 9), mediaType: type)
        }
        return out
    }()

    /// Changes with every change of a static file, so a cached old copy is never used with a new page.
    public static let version: String = {
        let all = files.keys.sorted().flatMap { files[$0]?.bytes ?? [] }
        return Digest.hex(Digest.sha256(all).prefix(6))
    }()
}
