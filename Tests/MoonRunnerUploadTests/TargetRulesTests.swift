import Foundation
import MoonRunnerConfig
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerUpload

@Suite("Upload targets: the services' rules read as their documentation states them")
struct TargetRulesTests {
    @Test("Strava's duplicate error gives the activity it already has; other errors give none")
    func duplicate() {
        #expect(StravaTarget.duplicateOf("moonrunner-12.fit duplicate of <a href='/activities/4711' target='_blank'>Run</a>") == "4711")
        #expect(StravaTarget.duplicateOf("12.fit duplicate of activity 815") == "815")
        #expect(StravaTarget.duplicateOf("Improper FIT file: header is not .FIT") == nil)
    }

    @Test("Strava's limits: a spent 15-minute window waits for the next quarter hour, a spent day for midnight UTC")
    func rateLimit() {
        let now = 1_800_000_100.0  // 100 s past a quarter hour (1_800_000_000 is one)
        #expect(StravaRateLimit.resume(limit: "200,2000", usage: "201,1500", now: now) == 1_800_000_900)
        #expect(StravaRateLimit.resume(limit: "200,2000", usage: "150,2001", now: now) == (now / 86_400).rounded(.down) * 86_400 + 86_400)
    }

    @Test("a poll refused by a spent daily read limit waits for midnight though the overall limit has room")
    func readLimit() {
        let now = 1_800_000_100.0
        let midnight = (now / 86_400).rounded(.down) * 86_400 + 86_400
        #expect(StravaRateLimit.resume([("200,2000", "20,300"), ("100,1000", "30,1001")], now: now) == midnight)
        #expect(StravaRateLimit.resume([("200,2000", "201,300"), ("100,1000", "101,200")], now: now) == 1_800_000_900)
        #expect(StravaRateLimit.resume([], now: now) == 1_800_000_900, "a 429 without headers waits a quarter hour")
    }

    @Test("Strava's redirect grants uploads only with activity:write among its scopes")
    func scopes() {
        #expect(StravaTarget.granted("read,activity:write"))
        #expect(!StravaTarget.granted("read,activity:read"))
        #expect(!StravaTarget.granted(""))
    }

    @Test("PKCE's S256 challenge is RFC 7636's example")
    func pkce() {
        #expect(OAuth.challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("FitTrackee's workout_date is read as UTC seconds")
    func workoutDate() {
        #expect(DayText.rfc1123("Sat, 28 Nov 2026 10:15:00 GMT") == 1_795_860_900)
        #expect(DayText.iso(1_795_860_900) == "2026-11-28")
    }

    @Test("the upload: section is read strictly: zones of 100–2000 m, known keys only, Strava's zones off by default")
    func config() throws {
        let s = try UploadConfigReader.parse(yaml: """
            socket: {path: /tmp/mr.sock}
            upload:
              networks: [home]
              privacy_zones: [{lat: 51.5, lon: -0.12, radius_m: 300}]
              intervals: {url: "http://127.0.0.1:9"}
            """)
        #expect(s.networks == ["home"] && s.privacyZones.count == 1 && s.socketPath == "/tmp/mr.sock")
        #expect(s.zones(for: .strava).isEmpty && s.zones(for: .intervals).count == 1)
        #expect(s.target(.intervals).url == "http://127.0.0.1:9")
        #expect(throws: ConfigError.self) { _ = try UploadConfigReader.parse(yaml: "upload: {privacy_zones: [{lat: 1, lon: 1, radius_m: 50}]}") }
        #expect(throws: ConfigError.self) { _ = try UploadConfigReader.parse(yaml: "upload: {strva: {enabled: true}}") }
    }

    @Test("the upload socket's requests read back as they were written")
    func requests() throws {
        let all: [UploadRequest] = [.uploads(limit: 20), .targets, .retry(target: "strava", session: 3), .retry(target: nil, session: nil),
                                    .again(target: "webdav", session: 9), .setup(target: "intervals", fields: ["api_key": "k"]),
                                    .authorize(target: "strava", redirect: "http://pi.local:8080/uploads/callback"),
                                    .grant(state: "s", code: "c", scope: "read,activity:write"), .disconnect(target: "strava"), .watch]
        for r in all { #expect(try UploadRequest.parse(r.line) == r, "\(r.line)") }
        #expect(throws: RequestError.self) { _ = try UploadRequest.parse("?AGAIN={\"target\":\"strava\"};") }
    }

    @Test("a FIT file's first record time and record count are read as the exporter wrote them")
    func fitStart() {
        #expect(FITStart.firstRecord(Data("not a fit".utf8)) == nil)
        #expect(FITStart.records(Data()) == 0)
        let run = RunFile(id: 1, start: 1_795_860_900)
        #expect(FITStart.firstRecord(run.fit) == 1_795_860_900)
        #expect(FITStart.records(run.fit) == run.points)
    }
}
