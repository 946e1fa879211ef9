import Foundation
import HTTPTypes
import HummingbirdTesting
import MoonRunnerCore
import MoonRunnerProtocol
import GRDB
import NIOCore
import Testing
@testable import MoonRunnerWeb

@Suite("Web: headers, static files and the live feed")
struct SecurityAndFeedTests {
    @Test("every response carries a CSP of the Pi itself, frame-ancestors 'none', nosniff and no referrer")
    func headers() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            for path in ["/", "/pair", "/static/site.css", "/static/nope.css", "/sessions/404"] {
                try await client.get(path, cookie: cookie) { r in
                    let csp = r.headers[.contentSecurityPolicy] ?? ""
                    #expect(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'")
                        && csp.contains("img-src 'self'") && !csp.contains("unsafe-inline"), "\(path): \(csp)")
                    #expect(r.headers[.xContentTypeOptions] == "nosniff", "\(path)")
                    #expect(r.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(path)")
                }
            }
        }
    }

    @Test("with a tile URL, images may come from the tile host and nowhere else")
    func tileHost() {
        let policy = SecurityHeaders(tileOrigin: TileSource.url(template: "https://tile.example.org/{z}/{x}/{y}.png").remoteOrigin)
            .headers[.contentSecurityPolicy] ?? ""
        #expect(policy.contains("img-src 'self' https://tile.example.org;"))
        #expect(TileSource.mbtiles(path: "/a.mbtiles").remoteOrigin == nil)
    }

    @Test("static files are the compiled-in names only: ../ and its encoded variants never reach a file")
    func traversal() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/static/app.js", cookie: nil) { r in
                #expect(r.status == .ok && r.headers[.contentType] == "text/javascript; charset=utf-8")
            }
            for path in ["/static/../Package.swift", "/static/..%2f..%2fPackage.swift", "/static/%2e%2e/%2e%2e/etc/passwd",
                         "/static/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/static/..%5c..%5cetc%5cpasswd", "/static/%252e%252e%252fetc",
                         "/static//etc/passwd", "/static/site.css%00.js", "/leaflet/../../etc/passwd",
                         "/leaflet/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/tiles/../../etc/passwd"] {
                try await client.get(path, cookie: cookie) { r in
                    #expect(r.status == .notFound || r.status == .badRequest, "\(path): \(r.status)")
                    let body = String(buffer: r.body)
                    #expect(!body.contains("root:") && !body.contains("PackageDescription"), "\(path) leaked a file")
                }
            }
        }
    }

    @Test("static files go out gzipped when the browser takes it, with a long cache for their versioned names")
    func staticGzip() async throws {
        let web = try TestWeb()
        try await web.test { client in
            try await client.get("/static/site.css", cookie: nil, headers: [.acceptEncoding: "gzip, br"]) { r in
                #expect(r.headers[.contentEncoding] == "gzip")
                #expect(r.body.readableBytes < (Assets.files["site.css"]?.bytes.count ?? 0) / 2)
                #expect(r.headers[.cacheControl]?.contains("immutable") == true)
            }
            try await client.get("/static/site.css", cookie: nil, headers: [.acceptEncoding: "gzip;q=0"]) { r in
                #expect(r.headers[.contentEncoding] == nil)
            }
        }
    }

    @Test("the live stream relays STATUS as `status` events with the run screen's figures, and EVENT as `event`")
    func stream() async throws {
        var recording = FakeDaemon.State()
        recording.state = .recording
        let event = ReplyEncoder.line(EventReply(session: 7, event: SessionEvent(kind: .lap, time: 1_714_548_650,
                                                                                 detectedAt: 1_714_548_650, cause: "command",
                                                                                 state: .recording, detail: "1")))
        let gate = WatchGate()
        let daemon = FakeDaemon(watch: [FakeDaemon.status(recording), event], watchGate: gate)
        let web = try TestWeb(daemon: daemon)
        gate.open(whenSubscribed: web.feed)
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/live", cookie: cookie, headers: [.accept: "text/event-stream"]) { r in
                #expect(r.headers[.contentType] == "text/event-stream")
                let text = String(buffer: r.body)
                #expect(text.hasPrefix("retry: 2000\n\n"))
                let events = text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
                let kinds = events.compactMap { $0.split(separator: "\n").first.map(String.init) }
                #expect(kinds.contains("event: status") && kinds.contains("event: event"))
                let lap = events.first { $0.hasPrefix("event: event") } ?? ""
                #expect(lap.contains(#""text":"Lap 1""#))
                let last = events.last { $0.hasPrefix("event: status") } ?? ""
                #expect(last.contains(#""distance_m":["1.23 km","1234.5"]"#))
                #expect(last.contains(#""state":"recording""#))
            }
        }
    }

    @Test("one ?WATCH serves every phone: three live streams, one watch connection to the daemon")
    func oneWatch() async throws {
        let daemon = FakeDaemon(watch: [FakeDaemon.status(.init())], holdWatch: true)
        let web = try TestWeb(daemon: daemon)
        let feed = web.feed
        try await web.test { client in
            let subs = await [feed.subscribe(device: "1"), feed.subscribe(device: "2"), feed.subscribe(device: "3")]
            for s in subs {
                var it = s.items.makeAsyncIterator()
                _ = await it.next()  // the link's state
            }
            #expect(await feed.watchers == 3)
        }
        #expect(daemon.state.withLock { $0.watchers } == 1)
    }

    @Test("when the daemon goes away the phones are told the link is down, with why")
    func linkDown() async throws {
        let feed = StatusFeed(link: DownLink(), reconnects: false)
        let sub = await feed.subscribe(device: nil)
        let running = Task { try await feed.run() }
        var items: [FeedItem] = []
        for await item in sub.items { items.append(item) }
        running.cancel()
        #expect(items.first == .link(up: false, reason: "connecting to moonrunnerd"))
        #expect(items.contains { if case let .link(false, why) = $0 { why.contains("not running") } else { false } })
    }

    @Test("the wait before reconnecting doubles from 0.25 s to 5 s and starts over once the daemon answered")
    func backoff() {
        var b = Backoff()
        #expect((0..<7).map { _ in b.wait() } == [0.25, 0.5, 1, 2, 4, 5, 5])
        b.reset()
        #expect(b.wait() == 0.25)
    }

    @Test("with tiles the session page adds the tiled map, Leaflet from the Pi, and keeps the drawn route")
    func tiles() async throws {
        var settings = WebSettings()
        settings.tiles = .url(template: "https://tile.example.invalid/{z}/{x}/{y}.png")
        settings.leafletDir = "/usr/share/javascript/leaflet"
        let web = try TestWeb(settings: settings)
        let hasLeaflet = FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/sessions/12", cookie: cookie) { r in
                let html = String(buffer: r.body)
                #expect(r.status == .ok)
                #expect(html.contains(#"data-tiles="https://tile.example.invalid/{z}/{x}/{y}.png""#))
                #expect(html.contains(#"<script src="/leaflet/leaflet.js""#) && html.contains(#"<img src="/sessions/12/pictures/map"#))
                #expect(r.headers[.contentSecurityPolicy]?.contains("img-src 'self' https://tile.example.invalid") == true)
            }
            // Debian's libjs-leaflet, which make deps installs: its absence fails here, it is not skipped.
            #expect(hasLeaflet, "/usr/share/javascript/leaflet/leaflet.js is absent: apt-get install libjs-leaflet")
            try await client.get("/leaflet/leaflet.js", cookie: cookie) { r in #expect(r.status == .ok) }
            try await client.get("/leaflet/images/layers.png", cookie: cookie) { r in #expect(r.status == .ok) }
            try await client.get("/tiles/1/0/0", cookie: cookie) { r in #expect(r.status == .notFound, "no MBTiles here") }
        }
    }

    @Test("an MBTiles file's tiles are served at /tiles/z/x/y, rows counted from the north")
    func mbtiles() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("area-\(UUID().uuidString).mbtiles")
        defer { try? FileManager.default.removeItem(at: file) }
        let db = try DatabaseQueue(path: file.path)
        try await db.write { db in
            try db.execute(sql: "CREATE TABLE metadata (name TEXT, value TEXT); INSERT INTO metadata VALUES ('format', 'png')")
            try db.execute(sql: "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
            // z 1: TMS row 0 is the south, XYZ y 1.
            try db.execute(sql: "INSERT INTO tiles VALUES (1, 0, 0, ?)", arguments: [Data("south-west".utf8)])
        }
        var settings = WebSettings()
        settings.tiles = .mbtiles(path: file.path)
        let web = try TestWeb(settings: settings)
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/tiles/1/0/1", cookie: cookie) { r in
                #expect(r.status == .ok && String(buffer: r.body) == "south-west")
                #expect(r.headers[.contentType] == "image/png")
            }
            try await client.get("/tiles/1/0/0", cookie: cookie) { r in #expect(r.status == .notFound) }
            try await client.get("/tiles/1/5/0", cookie: cookie) { r in #expect(r.status == .notFound, "x beyond the zoom") }
            try await client.get("/tiles/1/0/1", cookie: nil, headers: [.accept: "*/*"]) { r in #expect(r.status == .unauthorized) }
        }
    }

    @Test("an SSE frame puts every line of its data behind `data:` and ends with a blank line")
    func framing() {
        #expect(EventFrame.frame(event: "status", data: "a\nb") == "event: status\ndata: a\ndata: b\n\n")
        let link = EventFrame.frame(for: .link(up: false, reason: "gone"), phrases: .chinese, units: .metric)
        #expect(link.contains("树莓派上的 MoonRunner 未运行"))
    }

    @Test("the daemon's configured units and upload limit come from ?CONFIG")
    func facts() throws {
        let config = try JSONValue.parse(#"{"units":"imperial","course":{"max_upload_kb":64}}"#)
        let f = DaemonFacts(config: config)
        #expect(f.units == .imperial && f.maxUploadBytes == 65_536)
    }

    @Test("every daemon ERROR code has an HTTP status; none is a 500 but a bug")
    func statuses() {
        for code in RequestError.Code.allCases {
            let status = HTTPResponse.Status(code)
            #expect((status == .internalServerError) == (code == .internalError), "\(code) → \(status)")
        }
        #expect(HTTPResponse.Status(.invalidState) == .conflict)
        #expect(HTTPResponse.Status(.notFound) == .notFound)
        #expect(HTTPResponse.Status(.forbidden) == .forbidden)
    }
}
