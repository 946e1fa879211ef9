import Foundation
import MoonRunnerConfig
import MoonRunnerCore
import Testing
@testable import MoonRunnerWeb

@Suite("Web: the web: section of moonrunner.yaml")
struct WebConfigTests {
    static let repoConfig = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/moonrunner.yaml").path

    @Test("the shipped config file documents every web key, and its values are the defaults")
    func shippedFile() throws {
        let s = try WebConfigReader.load(path: Self.repoConfig)
        #expect(s == WebSettings())
        let text = try String(contentsOfFile: Self.repoConfig, encoding: .utf8)
        for key in WebConfigReader.knownKeys {
            let leaf = String(key.split(separator: ".").last ?? "")
            #expect(text.contains("\(leaf):"), "config/moonrunner.yaml does not document \(key)")
        }
    }

    @Test("web keys are applied; the daemon's other keys are left to the daemon")
    func applies() throws {
        let s = try WebConfigReader.parse(yaml: """
            gpsd: {host: 10.0.0.1}
            socket: {path: /tmp/x/mr.sock, max_clients: 8}
            web:
              listen: 127.0.0.1:9090
              tiles: mbtiles:/srv/area.mbtiles
              public_url: http://moonrunner.local:9090/
            """)
        #expect(s.host == "127.0.0.1" && s.port == 9090)
        #expect(s.socketPath == "/tmp/x/mr.sock")
        #expect(s.tiles == .mbtiles(path: "/srv/area.mbtiles"))
        #expect(s.publicURL == "http://moonrunner.local:9090")
    }

    @Test("an invalid web value stops the web app naming the key, the value and what is allowed (EX_CONFIG)",
          arguments: [
              ("web: {listen: 8080}", "web.listen"),
              ("web: {listen: \"0.0.0.0:99999\"}", "web.listen"),
              ("web: {lsten: \"0.0.0.0:8080\"}", "web.lsten"),
              ("web: {tiles: \"ftp://x/{z}/{x}/{y}\"}", "web.tiles"),
              ("web: {tiles: \"https://tile.example.org/a.png\"}", "web.tiles"),
              ("web: {tiles: \"mbtiles:relative.mbtiles\"}", "web.tiles"),
              ("web: {idle_timeout_s: 0}", "web.idle_timeout_s"),
              ("web: {public_url: \"moonrunner.local\"}", "web.public_url"),
              ("web: 3", "web"),
          ])
    func invalid(_ yaml: String, _ key: String) {
        #expect(throws: ConfigError.self) { _ = try WebConfigReader.parse(yaml: yaml) }
        do {
            _ = try WebConfigReader.parse(yaml: yaml)
        } catch {
            #expect(error.key == key, "\(yaml)")
            #expect(ConfigError.exitCode == 78)
        }
    }

    @Test("a misspelt web key names the nearest one")
    func nearest() {
        do {
            _ = try WebConfigReader.parse(yaml: "web: {lsten: \"0.0.0.0:8080\"}")
            Issue.record("accepted")
        } catch {
            #expect(error.allowed == "unknown key (did you mean web.listen?)")
        }
    }

    @Test("tiles need Leaflet: without leaflet.js the web app refuses to start, naming web.leaflet_dir")
    func leafletNeeded() {
        var s = WebSettings()
        s.tiles = .url(template: "https://tile.example.org/{z}/{x}/{y}.png")
        s.leafletDir = "/nonexistent"
        do {
            try WebConfigReader.validateAtStart(s)
            Issue.record("accepted")
        } catch {
            #expect(error.key == "web.leaflet_dir")
        }
        s.tiles = .mbtiles(path: "/nonexistent.mbtiles")
        do {
            try WebConfigReader.validateAtStart(s)
            Issue.record("accepted")
        } catch {
            #expect(error.key == "web.tiles")
        }
    }
}
