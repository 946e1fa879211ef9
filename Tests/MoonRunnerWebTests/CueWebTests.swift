import Foundation
import HTTPTypes
import HummingbirdTesting
import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerWeb

@Suite("Web: the course's cues")
struct CueWebTests {
    static let following = #""course":{"id":1,"name":"Ridge","length_m":5000,"progress_m":1880,"to_go_m":3120,"eta_s":900,"distance_to_course_m":3,"on_course":true,"bearing_to_course_deg":null,"finished":false,"next_cue":{"kind":"left","name":"Elm Street","course_m":2000,"distance_m":118.4,"then":["right"]}}"#

    @Test("the run screen shows the next cue: an arrow, the distance to it and its words, in the phone's language; none without one")
    func nextCue() throws {
        let status = try JSONValue.parse(FakeDaemon.status(.init()).replacingOccurrences(of: #""course":null"#, with: Self.following))
        let en = LiveView(status: status, phrases: .english, units: .metric)
        #expect(en.flags["cue"] == true)
        #expect(en.cue.arrow.text == "←" && en.cue.arrow.value == "left")
        #expect(en.cue.distance.text == "120 m" && en.cue.distance.value == "118.4")
        #expect(en.cue.text.text == "Turn left, then right onto Elm Street")
        let zh = LiveView(status: status, phrases: .chinese, units: .metric)
        #expect(zh.cue.text.text == "左转，然后右转，进入Elm Street")
        // The live stream carries the same three figures.
        #expect(en.json.contains(#""course.next_cue.distance_m":["120 m","118.4"]"#))
        let none = LiveView(status: try JSONValue.parse(FakeDaemon.status(.init())), phrases: .english, units: .metric)
        #expect(none.flags["cue"] == false && none.cue.text.text == "")
    }

    static let marked = """
        <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">\
        <wpt lat="51.5009" lon="-0.16"><name>Rue de l&apos;Église</name><sym>Left</sym></wpt>\
        <wpt lat="51.5015" lon="-0.1590"><name>Brunnen</name><type>Water</type></wpt>\
        <wpt lat="51.5015" lon="-0.1500"><name>Café</name><sym>Restaurant</sym><type>Food</type></wpt>\
        <trk><name>Marked loop</name><trkseg><trkpt lat="51.5" lon="-0.16"/><trkpt lat="51.501" lon="-0.16"/>\
        <trkpt lat="51.501" lon="-0.158"/></trkseg></trk></gpx>
        """

    @Test("a course's page lists its cues with their distances; a point away from the course is listed and said to be")
    func coursePage() async throws {
        let web = try TestWeb()
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf("/courses", cookie: cookie)
            let (body, type) = Multipart.form(["csrf": csrf, "name": ""], file: Data(Self.marked.utf8), fileName: "m.gpx")
            try await client.execute(uri: "/courses", method: .post,
                                     headers: [.contentType: type, .cookie: cookie, .origin: TestWeb.origin], body: body) { r in
                #expect(r.status == .seeOther)
            }
            try await client.get("/courses", cookie: cookie) { r in
                #expect(String(buffer: r.body).contains(#"<a href="/courses/1">Marked loop</a>"#))
            }
            try await client.get("/courses/1", cookie: cookie) { r in
                let page = String(buffer: r.body)
                #expect(r.status == .ok)
                #expect(page.contains("Turn left onto Rue de l&#39;Église") || page.contains("Turn left onto Rue de l&apos;Église"),
                        "\(page)")
                #expect(page.contains("Water: Brunnen") && page.contains("0.10 km"))
                #expect(page.contains("Food: Café") && page.contains("off the course: listed, not said"))
            }
            try await client.get("/courses/9", cookie: cookie) { r in #expect(r.status == .notFound) }
        }
    }
}
