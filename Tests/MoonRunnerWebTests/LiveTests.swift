import Foundation
import HTTPTypes
import HummingbirdTesting
import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerWeb

@Suite("Web: the run screen and its controls")
struct LiveTests {
    @Test("every control is a POST that the daemon hears once; the phone goes back to the run screen")
    func controls() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf(cookie: cookie)
            for (path, fields) in [("/session/start", ["activity": "walk", "course": "", "to": "51.5, -0.16"]),
                                   ("/session/pause", [:]), ("/session/resume", [:]), ("/session/lap", [:]),
                                   ("/session/quiet", ["quiet": "on"]), ("/session/stop", [:])] {
                try await client.post(path, fields.merging(["csrf": csrf]) { a, _ in a }, cookie: cookie) { r in
                    #expect(r.status == .seeOther, "\(path): \(String(buffer: r.body).prefix(300))")
                    #expect(r.headers[.location] == "/")
                }
            }
        }
        #expect(web.daemon.stateChanges == [
            .start(activity: "walk", course: nil, destination: GeoPoint(latitude: 51.5, longitude: -0.16)),
            .pause, .resume, .lap, .announce(quiet: true), .stop,
        ])
    }

    @Test("?PAUSE refused with invalid_state is a 409 carrying the daemon's message")
    func refused() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf(cookie: cookie)
            try await client.post("/session/pause", ["csrf": csrf], cookie: cookie) { r in
                #expect(r.status == .conflict)
                #expect(String(buffer: r.body).contains("nothing to pause: no session is being recorded"))
            }
        }
    }

    @Test("a POST without this server's Origin, or with a wrong or missing CSRF token, is a 403 and changes nothing")
    func forged() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf(cookie: cookie)
            try await client.post("/session/start", ["csrf": csrf], cookie: cookie, origin: "http://evil.example") { r in
                #expect(r.status == .forbidden)
            }
            try await client.post("/session/start", ["csrf": csrf], cookie: cookie, origin: nil) { r in #expect(r.status == .forbidden) }
            // A token one character off (a token that happened to start with "x" stayed valid as "x…").
            let wrong = (csrf.first == "x" ? "y" : "x") + csrf.dropFirst()
            try await client.post("/session/start", ["csrf": wrong], cookie: cookie) { r in
                #expect(r.status == .forbidden)
            }
            try await client.post("/session/start", [:], cookie: cookie) { r in #expect(r.status == .forbidden) }
            try await client.post("/sessions/12/delete", ["csrf": "nope"], cookie: cookie) { r in #expect(r.status == .forbidden) }
            try await client.post("/settings", ["lang": "zh"], cookie: cookie) { r in
                #expect(r.status == .forbidden)
                #expect(r.headers[.setCookie] == nil)
            }
        }
        #expect(web.daemon.stateChanges.isEmpty)
    }

    @Test("a CSRF token is the device's own: another paired phone's token is refused")
    func csrfPerDevice() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let a = try await client.pair(web.devices), b = try await client.pair(web.devices)
            let tokenOfA = try await client.csrf(cookie: a)
            try await client.post("/session/start", ["csrf": tokenOfA], cookie: b) { r in #expect(r.status == .forbidden) }
        }
        #expect(web.daemon.stateChanges.isEmpty)
    }

    @Test("no GET changes state: every page and download asks the daemon read-only questions")
    func getsAreSafe() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            for path in ["/", "/sessions", "/sessions?before=99", "/sessions/12", "/sessions/12/export.gpx", "/courses",
                         "/badges", "/settings", "/pair", "/session/stop", "/session/start", "/sessions/12/delete"] {
                try await client.get(path, cookie: cookie) { _ in }
            }
        }
        #expect(!web.daemon.requests.isEmpty)
        #expect(web.daemon.stateChanges.isEmpty)
    }

    @Test("the daemon not running gives a 503 page that says so, never a 500")
    func daemonDown() async throws {
        let web = try TestWeb(link: DownLink())
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            for path in ["/", "/sessions", "/sessions/12", "/courses", "/badges", "/sessions/12/export.gpx"] {
                try await client.get(path, cookie: cookie) { r in
                    #expect(r.status == .serviceUnavailable, "\(path)")
                    let text = String(buffer: r.body)
                    #expect(text.contains("MoonRunner is not running") && text.contains("No such file or directory"), "\(path)")
                }
            }
            try await client.get("/settings", cookie: cookie) { r in #expect(r.status == .ok, "settings need no daemon") }
        }
    }

    @Test("the live page shows every STATUS figure with its key and raw value, and the controls of the state")
    func livePage() async throws {
        let web = try TestWeb()
        web.daemon.state.withLock { $0.state = .paused }
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/", cookie: cookie) { r in
                let html = String(buffer: r.body)
                #expect(html.contains(#"data-field="distance_m" data-value="1234.5"><span class="n">1.23</span> <span class="u">km</span>"#))
                #expect(html.contains(#"data-field="elapsed_s" data-value="600"><span class="n">00:10:00</span> <span class="u"></span>"#))
                #expect(html.contains(#"data-field="state" data-value="paused">Paused<"#))
                #expect(html.contains(#"action="/session/resume" data-states="paused">"#), "resume shows when paused")
                #expect(html.contains(#"action="/session/pause" data-states="recording autoPaused" hidden>"#))
            }
        }
    }

    @Test("Accept-Language zh-CN picks Chinese; the lang cookie overrides it; imperial units show miles")
    func languageAndUnits() async throws {
        let web = try TestWeb()
        web.daemon.state.withLock { $0.state = .recording }
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/", cookie: cookie, headers: [.acceptLanguage: "zh-CN,zh;q=0.9,en;q=0.8"]) { r in
                let html = String(buffer: r.body)
                #expect(html.contains(#"<html lang="zh-Hans">"#))
                #expect(html.contains(">记录中<") && html.contains(">距离<"))
            }
            try await client.get("/", cookie: cookie + "; lang=en; units=imperial", headers: [.acceptLanguage: "zh-CN"]) { r in
                let html = String(buffer: r.body)
                #expect(html.contains(#"<html lang="en">"#))
                #expect(html.contains(#"data-value="1234.5"><span class="n">0.77</span> <span class="u">mi</span>"#), "1234.5 m is 0.77 mi")
            }
            let csrf = try await client.csrf("/settings", cookie: cookie)
            try await client.post("/settings", ["csrf": csrf, "lang": "zh", "units": "imperial"], cookie: cookie) { r in
                #expect(r.status == .seeOther)
                let set = r.headers[values: .setCookie]
                #expect(set.contains { $0.hasPrefix("lang=zh") && $0.contains("SameSite=Strict") })
                #expect(set.contains { $0.hasPrefix("units=imperial") })
            }
        }
    }

    @Test("Accept-Language: Chinese when it is preferred, English otherwise")
    func acceptLanguage() {
        #expect(Language.preferred(acceptLanguage: "zh-CN,zh;q=0.9") == .chinese)
        #expect(Language.preferred(acceptLanguage: "en-GB,en;q=0.9,zh;q=0.8") == .english)
        #expect(Language.preferred(acceptLanguage: "fr-FR,zh-TW;q=0.5") == .chinese)
        #expect(Language.preferred(acceptLanguage: "fr-FR") == .english)
        #expect(Language.preferred(acceptLanguage: nil) == .english)
    }

    @Test("both languages have every phrase")
    func phrasesComplete() {
        for p in Phrase.allCases {
            #expect(Phrases.english.table[p] != nil, "English lacks \(p)")
            #expect(Phrases.chinese.table[p] != nil, "Chinese lacks \(p)")
        }
    }

    @Test("a new STATUS figure is one line of the table: its key, its kind and its label")
    func figureIsOneLine() throws {
        let status = try JSONValue.parse(#"{"class":"STATUS","state":"recording","hr_bpm":142,"hr_zone":3}"#)
        let spec = FigureSpec("hr_bpm", .count("bpm"), .words(en: "Heart rate", zh: "心率"))
        let en = spec.figure(in: status, phrases: .english, units: .metric)
        let zh = spec.figure(in: status, phrases: .chinese, units: .metric)
        #expect(en == Figure(key: "hr_bpm", label: "Heart rate", text: "142 bpm", value: "142"))
        #expect(en.number == "142" && en.unit == "bpm")
        #expect(zh.label == "心率")
        let absent = FigureSpec("hr_missing", .count("bpm"), .words(en: "x", zh: "x")).figure(in: status, phrases: .english, units: .metric)
        #expect(absent.text == "–" && absent.value == "")
    }

    @Test("climb and descent carry their sign, except when they round to nothing")
    func heightSigns() {
        let text = { (v: Double, kind: FigureKind, units: UnitSystem) in FigureText.text(.number(v), kind, .english, units) }
        #expect(text(12.4, .climb, .metric) == "+12 m" && text(8, .descent, .metric) == "−8 m")
        #expect(text(0.3, .climb, .metric) == "0 m" && text(0.2, .descent, .metric) == "0 m")
        #expect(text(10, .climb, .imperial) == "+33 ft" && text(0.1, .descent, .imperial) == "0 ft")
    }

    @Test("with a strap configured the run screen shows heart rate and zone, and says when the strap is lost; without one the block is hidden")
    func heartRate() throws {
        let connected = try JSONValue.parse(#"{"class":"STATUS","state":"recording","hr_bpm":152,"hr_zone":4,"hr_state":"connected"}"#)
        let view = LiveView(status: connected, phrases: .english, units: .metric)
        #expect(view.flags["hr"] == true)
        #expect(view.heartFigures.map(\.text) == ["152 bpm", "4"])
        #expect(view.heartFigures.map(\.key) == ["hr_bpm", "hr_zone"])
        #expect(view.heartState.text == "")
        let lost = try JSONValue.parse(#"{"class":"STATUS","state":"recording","hr_bpm":null,"hr_zone":null,"hr_state":"lost"}"#)
        let zh = LiveView(status: lost, phrases: .chinese, units: .metric)
        #expect(zh.heartFigures[0].text == "–" && zh.heartState.text == "心率带断开")
        let none = try JSONValue.parse(#"{"class":"STATUS","state":"recording","hr_bpm":null,"hr_zone":null,"hr_state":"none"}"#)
        #expect(LiveView(status: none, phrases: .english, units: .metric).flags["hr"] == false)
        #expect(LiveView(status: try JSONValue.parse(#"{"class":"STATUS","state":"idle"}"#), phrases: .english,
                         units: .metric).flags["hr"] == false, "a daemon before protocol 1.2 sends no hr_state")
    }

    @Test("off course, the run screen says which way the course is, in the announcer's words")
    func offCourse() throws {
        let line = FakeDaemon.status(.init()).replacingOccurrences(of: #""course":null"#, with:
            #""course":{"id":1,"name":"Ridge","length_m":5000,"progress_m":null,"to_go_m":null,"eta_s":null,"distance_to_course_m":60,"on_course":false,"bearing_to_course_deg":270,"finished":false}"#)
        let status = try JSONValue.parse(line)
        let en = LiveView(status: status, phrases: .english, units: .metric)
        #expect(en.flags["course"] == true && en.flags["offcourse"] == true)
        #expect(en.wayBack.text == "The course is 0.06 km to the west (270°)")
        let zh = LiveView(status: status, phrases: .chinese, units: .metric)
        #expect(zh.wayBack.text == "路线在西方0.06 km（270°）")
    }
}
