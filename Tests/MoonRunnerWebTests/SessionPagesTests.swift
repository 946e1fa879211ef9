import Foundation
import HTTPTypes
import HummingbirdTesting
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import NIOCore
import Testing
@testable import MoonRunnerWeb

@Suite("Web: history, sessions, downloads and courses")
struct SessionPagesTests {
    @Test("a session whose altitude came from the terrain model and GPS says how much from each; one source is named alone")
    func elevationShares() async throws {
        var mixed = WebFixture.session(id: 12)
        mixed.stats.demPoints = mixed.stats.points * 96 / 100
        mixed.stats.altitudeSource = .dem
        let web = try TestWeb(daemon: FakeDaemon(sessions: [mixed, WebFixture.session(id: 13)]))
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/sessions/12", cookie: cookie) { r in
                #expect(String(buffer: r.body).contains("terrain model 96 %, GPS 4 %"))
            }
            try await client.get("/sessions/13", cookie: cookie + "; lang=zh") { r in
                let html = String(buffer: r.body)
                #expect(html.contains("卫星定位") && !html.contains("卫星定位 100 %"))
            }
        }
        #expect(FigureText.altitudeShares(AltitudeShares(barometric: 0.5, dem: 0, gps: 0.5), .english) == "barometer 50 %, GPS 50 %")
        #expect(FigureText.altitudeShares(AltitudeShares(barometric: 0, dem: 0, gps: 1), .english) == nil)
    }

    @Test("the session page's figures are the SESSION reply's members (data-field, data-value)")
    func sessionFigures() async throws {
        let web = try TestWeb()
        let json = try JSONValue.parse(FakeDaemon.sessionLine(WebFixture.session()))
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/sessions/12", cookie: cookie) { r in
                #expect(r.status == .ok)
                let html = String(buffer: r.body)
                var checked = 0
                for (key, value) in Self.dataFields(html) {
                    guard let expected = json.at(path: key) else {
                        Issue.record("\(key) is not a member of SESSION")
                        continue
                    }
                    #expect(FigureText.rawValue(expected) == value, "\(key)")
                    checked += 1
                }
                #expect(checked >= 12)
                for format in ExportFormat.allCases { #expect(html.contains("/sessions/12/export.\(format.rawValue)")) }
                for kind in PictureKind.allCases {
                    #expect(html.contains("<img src=\"/sessions/12/pictures/\(kind.rawValue)?v="), "\(kind)")
                }
            }
        }
    }

    @Test("the pictures are the export module's SVGs: route with the GPS outage marked, pace, elevation, cadence, split bars")
    func pictures() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            for (kind, must) in [("map", ">GPS lost<"), ("pace", "Pace (min/km)"), ("elevation", "Elevation (m)"),
                                 ("cadence", "Cadence (spm)"), ("splits", ">1<")] {
                try await client.get("/sessions/12/pictures/\(kind)", cookie: cookie) { r in
                    #expect(r.status == .ok && r.headers[.contentType] == "image/svg+xml", "\(kind)")
                    let svg = String(buffer: r.body)
                    #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.contains(must), "\(kind): \(must)")
                }
            }
            try await client.get("/sessions/12/pictures/pace", cookie: cookie + "; lang=zh; units=imperial") { r in
                #expect(String(buffer: r.body).contains("配速 (min/mi)"))
            }
            try await client.get("/sessions/12/pictures/nope", cookie: cookie) { r in #expect(r.status == .notFound) }
            try await client.get("/sessions/99/pictures/map", cookie: cookie) { r in #expect(r.status == .notFound) }
        }
    }

    @Test("a stopped session is read from the daemon once for its page and all its pictures, in any units")
    func readOnce() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            for units in ["metric", "metric", "imperial"] {
                try await client.get("/sessions/12", cookie: cookie + "; units=\(units)") { r in #expect(r.status == .ok) }
                for kind in PictureKind.allCases {
                    try await client.get("/sessions/12/pictures/\(kind.rawValue)", cookie: cookie + "; units=\(units)") { r in
                        #expect(r.status == .ok)
                    }
                }
            }
        }
        let reads = web.daemon.requests.filter {
            switch $0 {
            case .export, .session: true
            default: false
            }
        }
        #expect(reads.count == 2 && reads.contains(.session(id: 12)) && reads.contains(.export(id: 12, format: "csv")),
                "\(reads)")
    }

    @Test("a session deleted elsewhere is not shown from what the web app kept")
    func keptButDeleted() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/sessions/12", cookie: cookie) { r in #expect(r.status == .ok) }
            _ = web.daemon.answer(#"?DELETE={"id":12};"#)  // as `moonrunner delete 12` would
            try await client.get("/sessions/12", cookie: cookie) { r in #expect(r.status == .notFound) }
            try await client.get("/sessions/12/pictures/map", cookie: cookie) { r in #expect(r.status == .notFound) }
        }
    }

    @Test("an unknown session is a 404 page, for the page, a download and a delete")
    func unknownSession() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/sessions/404", cookie: cookie) { r in
                #expect(r.status == .notFound)
                #expect(String(buffer: r.body).contains("There is no session 404"))
            }
            try await client.get("/sessions/404/export.gpx", cookie: cookie) { r in #expect(r.status == .notFound) }
            try await client.get("/sessions/12/export.exe", cookie: cookie) { r in #expect(r.status == .notFound) }
            try await client.get("/sessions/11/export.gpx", cookie: cookie) { r in #expect(r.status == .notFound, "an id below one") }
            try await client.get("/sessions/9223372036854775807/export.gpx", cookie: cookie) { r in #expect(r.status == .notFound) }
            try await client.get("/sessions/-3/export.gpx", cookie: cookie) { r in #expect(r.status == .notFound) }
            try await client.get("/sessions/abc", cookie: cookie) { r in #expect(r.status == .notFound) }
            let csrf = try await client.csrf(cookie: cookie)
            try await client.post("/sessions/404/delete", ["csrf": csrf], cookie: cookie) { r in #expect(r.status == .notFound) }
        }
    }

    @Test("a download is the daemon's export, decoded piece by piece, with the format's media type")
    func downloads() async throws {
        let session = WebFixture.session(minutes: 90)  // several EXPORT_DATA pieces
        let web = try TestWeb(daemon: FakeDaemon(sessions: [session]))
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            for format in ExportFormat.allCases {
                try await client.get("/sessions/12/export.\(format.rawValue)", cookie: cookie) { r in
                    #expect(r.status == .ok)
                    #expect(r.headers[.contentType] == format.mimeType)
                    #expect(r.headers[.contentDisposition] == "attachment; filename=\"moonrunner-12.\(format.rawValue)\"")
                    #expect(Data(buffer: r.body) == format.export(session), "\(format) byte for byte")
                }
            }
        }
    }

    @Test("deleting a session asks the daemon once and goes back to the history")
    func delete() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf("/sessions/12", cookie: cookie)
            try await client.post("/sessions/12/delete", ["csrf": csrf], cookie: cookie) { r in
                #expect(r.status == .seeOther && r.headers[.location] == "/sessions")
            }
        }
        #expect(web.daemon.stateChanges == [.delete(id: 12)])
    }

    @Test("the history lists sessions newest first with their figures and totals per week and month")
    func history() async throws {
        let sessions = (1...3).map { k -> ExportSession in
            var s = WebFixture.session(id: Int64(k))
            s.startTime += Double(k) * 86_400
            return s
        }
        let web = try TestWeb(daemon: FakeDaemon(sessions: sessions))
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/sessions", cookie: cookie) { r in
                let html = String(buffer: r.body)
                let ids = html.components(separatedBy: "href=\"/sessions/").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
                #expect(Array(ids.prefix(3)) == [3, 2, 1])
                #expect(html.contains("Weekly totals") && html.contains("Monthly totals"))
                #expect(html.contains("<td>2024-05</td><td>Run</td><td>3</td>"), "all three runs in May 2024")
                #expect(html.contains("<time datetime=\"2024-05-02T07:30:00Z\""))
            }
        }
    }

    @Test("weeks start on Monday in the wearer's time zone")
    func weeks() {
        // 2024-05-05 23:30 UTC is a Sunday; at UTC+2 it is Monday 01:30, a new week.
        let t = 1_714_951_800.0
        #expect(DateText.day(Double(DateText.weekStart(t)) * 86_400) == "2024-04-29")
        #expect(DateText.day(Double(DateText.weekStart(t, offsetMinutes: 120)) * 86_400) == "2024-05-06")
        #expect(DateText.readable(t, offsetMinutes: 120) == "2024-05-06 01:30 UTC+02:00")
        #expect(DateText.iso(t) == "2024-05-05T23:30:00Z")
    }

    // MARK: Courses

    static let gpx = """
        <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">\
        <trk><name>Park loop</name><trkseg><trkpt lat="51.5" lon="-0.16"/><trkpt lat="51.501" lon="-0.16"/>\
        <trkpt lat="51.502" lon="-0.161"/></trkseg></trk></gpx>
        """

    @Test("a GPX uploaded from the phone is added through ?COURSE_ADD and its pieces")
    func upload() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf("/courses", cookie: cookie)
            let (body, type) = Multipart.form(["csrf": csrf, "name": ""], file: Data(Self.gpx.utf8), fileName: "loop.gpx")
            try await client.execute(uri: "/courses", method: .post,
                                     headers: [.contentType: type, .cookie: cookie, .origin: TestWeb.origin], body: body) { r in
                #expect(r.status == .seeOther)
                #expect(r.headers[.location] == "/courses?added=Park%20loop")
            }
            try await client.get("/courses", cookie: cookie) { r in #expect(String(buffer: r.body).contains("Park loop")) }
        }
        #expect(web.daemon.state.withLock { $0.courses.map(\.name) } == ["Park loop"])
    }

    @Test("a file that is not a course is a 422 with the daemon's reason, and nothing is stored")
    func notACourse() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf("/courses", cookie: cookie)
            let (body, type) = Multipart.form(["csrf": csrf], file: Data("hello, not a course".utf8), fileName: "notes.txt")
            try await client.execute(uri: "/courses", method: .post,
                                     headers: [.contentType: type, .cookie: cookie, .origin: TestWeb.origin], body: body) { r in
                #expect(r.status == .unprocessableContent)
                #expect(String(buffer: r.body).contains("That file is not a course: not a GPX, TCX or FIT file"))
            }
        }
        #expect(web.daemon.state.withLock { $0.courses.isEmpty })
    }

    @Test("a broken multipart body (cut off, or no boundary) is a 400 and nothing reaches the daemon")
    func brokenUpload() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf("/courses", cookie: cookie)
            var (body, type) = Multipart.form(["csrf": csrf], file: Data(Self.gpx.utf8), fileName: "loop.gpx")
            body.moveWriterIndex(to: body.writerIndex - 40)  // the closing boundary is lost
            try await client.execute(uri: "/courses", method: .post,
                                     headers: [.contentType: type, .cookie: cookie, .origin: TestWeb.origin], body: body) { r in
                #expect(r.status == .badRequest)
                #expect(String(buffer: r.body).contains("broken or incomplete"))
            }
            try await client.execute(uri: "/courses", method: .post,
                                     headers: [.contentType: "multipart/form-data", .cookie: cookie, .origin: TestWeb.origin],
                                     body: ByteBuffer(string: "x")) { r in #expect(r.status == .badRequest) }
        }
        #expect(!web.daemon.requests.contains { if case .courseAdd = $0 { true } else { false } })
    }

    @Test("an upload larger than course.max_upload_kb is refused with 413 from its Content-Length, before it is read")
    func tooLarge() async throws {
        let daemon = FakeDaemon()
        daemon.state.withLock { $0.maxUploadKB = 16 }
        let web = try TestWeb(daemon: daemon)
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf("/courses", cookie: cookie)
            let (body, type) = Multipart.form(["csrf": csrf], file: Data(repeating: 0x41, count: 40 * 1024), fileName: "big.gpx")
            try await client.execute(uri: "/courses", method: .post,
                                     headers: [.contentType: type, .cookie: cookie, .origin: TestWeb.origin], body: body) { r in
                #expect(r.status == .contentTooLarge)
                #expect(String(buffer: r.body).contains("larger than 16 KB"))
            }
        }
        #expect(!daemon.requests.contains { if case .courseAdd = $0 { true } else { false } })
    }

    @Test("the courses page offers the file picker with the daemon's limit for the script's check")
    func coursesPage() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/courses", cookie: cookie) { r in
                #expect(String(buffer: r.body).contains("data-max-bytes=\"8388608\""))
            }
        }
    }

    /// `data-field`/`data-value` pairs of a page, in order.
    static func dataFields(_ html: String) -> [(String, String)] {
        var out: [(String, String)] = []
        var rest = Substring(html)
        while let r = rest.range(of: "data-field=\"") {
            rest = rest[r.upperBound...]
            let key = String(rest.prefix { $0 != "\"" })
            guard let v = rest.range(of: "data-value=\"") else { break }
            let between = rest[..<v.lowerBound]
            guard !between.contains(">") else { continue }
            out.append((key, String(rest[v.upperBound...].prefix { $0 != "\"" })))
        }
        return out
    }
}

/// `multipart/form-data` bodies as a browser sends them.
enum Multipart {
    static func form(_ fields: [String: String], file: Data, fileName: String) -> (ByteBuffer, String) {
        let boundary = "----MoonRunnerTestBoundary7MA4YWxkTrZu0gW"
        var body = ByteBuffer()
        for (k, v) in fields.sorted(by: { $0.key < $1.key }) {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(k)\"\r\n\r\n\(v)\r\n")
        }
        body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(fileName)\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n")
        body.writeBytes(file)
        body.writeString("\r\n--\(boundary)--\r\n")
        return (body, "multipart/form-data; boundary=\(boundary)")
    }
}
