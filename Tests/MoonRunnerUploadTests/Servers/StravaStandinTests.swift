import Foundation
import MoonRunnerProtocol
import MoonRunnerWeb
import Testing
@testable import MoonRunnerUpload

@Suite("Strava target against the stand-in of Strava's documented API", .serialized,
       .enabled(if: ServerTools.python != nil, "python3 is not installed"))
struct StravaStandinTests {
    /// A queue over a fresh ledger with Strava connected through its OAuth flow; retries after 0.2 s.
    struct Rig {
        let ledger: Ledger
        let queue: UploadQueue
        let source = FakeSource()

        init(_ strava: StravaStandin, _ http: HTTP) async throws {
            ledger = try Ledger(directory: try ServerTools.scratch("strava-ledger"))
            try ledger.setCredential(.strava, try await strava.connect(http, now: 1_700_000_000))
            var settings = UploadSettings()
            settings.targets[.strava] = strava.settings
            settings.firstWait = 0.2
            settings.longestWait = 1
            queue = UploadQueue(ledger: ledger, settings: settings, targets: [StravaTarget(http: http, settings: strava.settings)],
                                source: source)
        }

        func add(_ run: RunFile, _ id: Int64) async {
            await source.add(id, run.fit)
            await queue.catchUp()
        }
    }

    @Test("an upload is taken with 201 and polled until Strava says it is ready; the activity id is kept")
    func uploadAndPoll() async throws {
        let strava = try await StravaStandin()
        try await withHTTP { http in
            let rig = try await Rig(strava, http)
            let run = RunFile(id: 1, start: 1_795_860_900)
            await rig.add(run, 1)
            let job = try #require(try await settle(rig.queue, rig.ledger, .strava, 1))
            #expect(job.state == .done)
            let stored = try await strava.stored(http)
            #expect(stored.activities.count == 1)
            #expect(job.remoteID == stored.activities.first?["id"]?.text)
            #expect(job.remoteURL == "https://www.strava.com/activities/\(job.remoteID ?? "")")
            // What Strava read of the file (Garmin's FIT SDK in the stand-in) is the session's.
            let activity = try #require(stored.activities.first)
            #expect(activity["sha256"]?.text == Digest.hex(Digest.sha256(Array(run.fit))))
            #expect(activity["points"]?.double == Double(run.points))
            #expect(abs((activity["distance_m"]?.double ?? 0) - run.distance) < 0.01)
            #expect(activity["start"]?.double == run.session.startTime)
        }
    }

    @Test("an access token about to expire is refreshed first, and the rotated refresh token is the one kept")
    func rotation() async throws {
        // Tokens live 60 s, inside the hour's refresh margin: every attempt refreshes.
        let strava = try await StravaStandin(tokenLife: 60)
        try await withHTTP { http in
            let first = try await strava.connect(http)
            let target = StravaTarget(http: http, settings: strava.settings)
            let a = ServerAttempt(.strava, session: 2, run: RunFile(id: 2, start: 1_795_864_500), credential: first)
            _ = try await target.send(a.attempt)
            let kept = a.box.value
            #expect(kept["refresh_token"] != nil && kept["refresh_token"] != first["refresh_token"])
            // The old refresh token stopped working when Strava rotated it.
            let again = ServerAttempt(.strava, session: 3, run: RunFile(id: 3, start: 1_795_868_100), credential: first)
            await #expect(throws: UploadFailure.self) { try await target.send(again.attempt) }
            // The kept one works.
            let next = ServerAttempt(.strava, session: 3, run: RunFile(id: 3, start: 1_795_868_100), credential: kept)
            _ = try await target.send(next.attempt)
        }
    }

    @Test("the connection dropped after Strava took the file: the retry's duplicate error names the first activity; one activity")
    func droppedAfterUpload() async throws {
        let strava = try await StravaStandin()
        try await withHTTP { http in
            let rig = try await Rig(strava, http)
            try await strava.control(#"{"drop_after": 1}"#, http)
            await rig.add(RunFile(id: 4, start: 1_795_871_700), 4)
            let job = try #require(try await settle(rig.queue, rig.ledger, .strava, 4))
            let stored = try await strava.stored(http)
            #expect(job.state == .done)
            #expect(stored.uploads == 2, "the file was sent again: Strava keys nothing on external_id")
            #expect(stored.activities.count == 1, "the duplicate made no second activity")
            #expect(job.remoteID == stored.activities.first?["id"]?.text)
        }
    }

    @Test("500 three times and then accepted: one activity")
    func serverErrors() async throws {
        let strava = try await StravaStandin()
        try await withHTTP { http in
            let rig = try await Rig(strava, http)
            try await strava.control(#"{"fail": [500, 502, 503]}"#, http)
            await rig.add(RunFile(id: 5, start: 1_795_875_300), 5)
            let job = try #require(try await settle(rig.queue, rig.ledger, .strava, 5))
            #expect(job.state == .done)
            #expect(job.attempts >= 4)
            #expect(try await strava.stored(http).activities.count == 1)
        }
    }

    @Test("a 429 past the 15-minute limit waits for the next quarter hour, as its headers say")
    func rateLimited() async throws {
        // One request per 15 minutes: the token exchange is not counted (not /api/v3), the upload is, its poll is the second.
        let strava = try await StravaStandin(limit: "1,1000")
        try await withHTTP { http in
            let target = StravaTarget(http: http, settings: strava.settings)
            let a = ServerAttempt(.strava, session: 6, run: RunFile(id: 6, start: 1_795_878_900), credential: try await strava.connect(http))
            guard case let .processing(pending) = try await target.send(a.attempt) else {
                Issue.record("Strava answers an upload with its status object, still processing")
                return
            }
            let now = Date().timeIntervalSince1970
            do {
                _ = try await target.poll(a.attempt, pending: pending)
                Issue.record("the second request of the window was not refused")
            } catch let UploadFailure.rateLimited(until, why) {
                #expect(until == (now / 900).rounded(.down) * 900 + 900 || until == (now / 900).rounded(.up) * 900 + 900)
                #expect(why.contains("2 of 1"), "\(why)")
            }
        }
    }

    @Test("a poll past the daily read limit waits for midnight UTC")
    func readLimit() async throws {
        let strava = try await StravaStandin(readLimit: "100,0")
        try await withHTTP { http in
            let target = StravaTarget(http: http, settings: strava.settings)
            let a = ServerAttempt(.strava, session: 7, run: RunFile(id: 7, start: 1_795_882_500), credential: try await strava.connect(http))
            guard case let .processing(pending) = try await target.send(a.attempt) else {
                Issue.record("the upload itself does not count against the read limit")
                return
            }
            let now = Date().timeIntervalSince1970
            await #expect(throws: UploadFailure.rateLimited(until: (now / 86_400).rounded(.down) * 86_400 + 86_400,
                                                            "Strava's rate limit is spent (usage 2,2 of 200,2000; 1,1 of 100,0); waiting")) {
                try await target.poll(a.attempt, pending: pending)
            }
        }
    }

    @Test("a revoked grant holds Strava: \"reconnect Strava\", and nothing more is tried")
    func revoked() async throws {
        let strava = try await StravaStandin()
        try await withHTTP { http in
            let rig = try await Rig(strava, http)
            try await strava.control(#"{"revoke": true}"#, http)
            await rig.add(RunFile(id: 8, start: 1_795_886_100), 8)
            let job = try #require(try await settle(rig.queue, rig.ledger, .strava, 8))
            #expect(job.state == .held)
            #expect(job.lastError?.contains("reconnect Strava") == true, "\(job.lastError ?? "")")
            #expect(try rig.ledger.credential(.strava)?.refused != nil)
            #expect(try await strava.stored(http).uploads == 0)
        }
    }

    @Test("a file Strava cannot read fails the job with Strava's words, and is not retried")
    func improperFile() async throws {
        let strava = try await StravaStandin()
        try await withHTTP { http in
            let rig = try await Rig(strava, http)
            await rig.source.add(9, Data("not a FIT file at all".utf8))
            await rig.queue.catchUp()
            let job = try #require(try await settle(rig.queue, rig.ledger, .strava, 9))
            #expect(job.state == .failed)
            #expect(job.lastError?.contains("Improper FIT file") == true, "\(job.lastError ?? "")")
            #expect(job.attempts == 2, "one upload and one poll")
        }
    }

    @Test("a slow answer past the client's timeout is a network failure, tried again later")
    func slow() async throws {
        let strava = try await StravaStandin()
        try await withHTTP { http in
            let impatient = HTTP(client: http.client, timeout: 1)
            let target = StravaTarget(http: impatient, settings: strava.settings)
            let a = ServerAttempt(.strava, session: 10, run: RunFile(id: 10, start: 1_795_889_700), credential: try await strava.connect(http))
            try await strava.control(#"{"slow": 3}"#, http)
            do {
                _ = try await target.send(a.attempt)
                Issue.record("a 3 s answer came within a 1 s timeout")
            } catch let UploadFailure.network(why) {
                #expect(why.contains("no answer in time"), "\(why)")
            }
            try await strava.control(#"{"slow": 0}"#, http)
        }
    }
}
