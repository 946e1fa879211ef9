import Foundation
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerUpload

@Suite("FitTrackee target against a real FitTrackee on PostgreSQL", .serialized,
       .enabled(if: ServerTools.fittrackeeReady && FileManager.default.fileExists(atPath: "/usr/share/postgresql/15/extension/postgis.control"),
                "needs FitTrackee (pip install fittrackee, MOONRUNNER_UPLOAD_VENV) and apt-get install postgresql-15-postgis-3"))
struct FitTrackeeServerTests {
    static let redirect = "http://pi.local:8080/uploads/callback"

    /// One server for the whole story (it takes about 15 s to start): each step's rule is in its message.
    @Test("connected through OAuth2 with PKCE, a session goes up when the network returns, once, read back whole; revoked, the target is held")
    func story() async throws {
        let server = try await FitTrackeeServer()
        try await withHTTP { http in
            var browser = FitTrackeeBrowser(http: http, base: server.base)
            try await browser.login()
            let app = try await browser.registerApp(redirect: Self.redirect)

            let ledger = try Ledger(directory: try ServerTools.scratch("fittrackee-ledger"))
            let source = FakeSource()
            var settings = UploadSettings()
            settings.targets[.fittrackee] = server.settings
            settings.firstWait = 0.2
            settings.longestWait = 1
            let queue = UploadQueue(ledger: ledger, settings: settings,
                                    targets: [FitTrackeeTarget(http: http, settings: server.settings)], source: source)
            let desk = UploadDesk(queue: queue, ledger: ledger, settings: settings, http: http)

            // "Connect FitTrackee" on the phone: the app's id and secret, FitTrackee's page, the redirect back.
            _ = await desk.answer(.setup(target: "fittrackee", fields: ["client_id": app.id, "client_secret": app.secret]))
            let ack = try ReplyEncoder.decode(UploadAck.self, from: await desk.answer(.authorize(target: "fittrackee", redirect: Self.redirect)))
            let url = try #require(ack.url)
            #expect(url.hasPrefix(server.base + "/profile/apps/authorize?"), "the phone is sent to FitTrackee's own page")
            #expect(url.contains("code_challenge_method=S256"), "the authorization carries a PKCE challenge")
            let back = try await browser.approve(url)
            let granted = await desk.answer(.grant(state: back["state"] ?? "", code: back["code"] ?? "", scope: nil))
            let targets = try ReplyEncoder.decode(TargetsReply.self, from: granted)
            #expect(targets.targets.first { $0.target == "fittrackee" }?.state == "connected",
                    "the code is exchanged with its PKCE verifier: \(granted)")
            #expect(!granted.contains(app.secret), "no secret comes back out of the upload socket")
            let token = try #require(try ledger.credential(.fittrackee)?["access_token"])

            // The network is down when the run ends; it returns, and the queue sends at once.
            await queue.network(NetworkView(up: false, names: []))
            let run = RunFile(id: 1, start: 1_795_860_900)
            await source.add(1, run.fit)
            let worker = Task { await queue.run() }
            try await Task.sleep(for: .seconds(1))
            #expect(try ledger.job(.fittrackee, 1)?.state == .queued, "nothing is sent while the network is down")
            let back0 = Date()
            await queue.network(NetworkView(up: true, names: ["home"]))
            var job = try ledger.job(.fittrackee, 1)
            while job?.state.isOpen != false, Date().timeIntervalSince(back0) < 60 {
                try await Task.sleep(for: .milliseconds(20))
                job = try ledger.job(.fittrackee, 1)
            }
            let took = Date().timeIntervalSince(back0)
            worker.cancel()
            await worker.value
            print("FitTrackee: network back to workout stored in \(String(format: "%.2f", took)) s")
            let done = try #require(job)
            #expect(done.state == .done, "uploaded when the network returned: \(done.lastError ?? "")")
            #expect(took < 10, "sent at once when the network returns, not at the next back-off (\(took) s)")
            let id = try #require(done.remoteID)
            #expect(done.remoteURL == server.base + "/workouts/\(id)")

            // What FitTrackee stored, read back against the session.
            let auth = [("Authorization", "Bearer \(token)")]
            let stored = try await http.send(.GET, server.base + "/api/workouts/\(id)", headers: auth)
            let workout = try #require(stored.json?["data"]?["workouts"]?.list.first, "\(stored.text)")
            let km = try #require(workout["distance"]?.double)
            #expect(abs(km * 1000 - run.distance) / run.distance < 0.01, "distance: \(km) km for \(run.distance) m")
            #expect(workout["duration"]?.text == "0:10:00", "time: \(workout["duration"]?.text ?? "")")
            #expect(workout["workout_date"]?.text.flatMap(DayText.rfc1123) == run.session.startTime, "start: the first point's")
            #expect(workout["sport_id"]?.double == 5, "a run is FitTrackee's Running")
            let original = try await http.send(.GET, server.base + "/api/workouts/\(id)/original/download", headers: auth)
            #expect(original.body == run.fit, "FitTrackee keeps the file sent, byte for byte the session's FIT (\(original.status))")
            let shape = try await http.send(.GET, server.base + "/api/workouts/\(id)/geojson", headers: auth).json
            #expect(Self.positions(shape) == run.points, "every point of the session is on FitTrackee's map")

            // An answer lost after FitTrackee took the file: the job in doubt looks by start time and sends nothing.
            var doubt = done
            doubt.state = .sending
            doubt.remoteID = nil
            doubt.remoteURL = nil
            try ledger.save(doubt)
            _ = try await queue.retry(target: .fittrackee, session: 1)
            let found = try #require(try await settle(queue, ledger, .fittrackee, 1))
            #expect(found.state == .done && found.remoteID == id, "the workout of the same start is taken as this job's")
            let list = try await http.send(.GET, server.base + "/api/workouts?per_page=100", headers: auth)
            #expect(list.json?["data"]?["workouts"]?.list.count == 1, "no second workout")

            // Access revoked on FitTrackee's apps page: the next upload is held with "reconnect FitTrackee".
            try await browser.revoke(appID: app.number)
            await source.add(2, RunFile(id: 2, start: 1_795_864_500).fit)
            await queue.catchUp()
            let held = try #require(try await settle(queue, ledger, .fittrackee, 2))
            #expect(held.state == .held, "a revoked token holds the target")
            #expect(held.lastError?.contains("reconnect FitTrackee") == true, "\(held.lastError ?? "")")
            let after = try ReplyEncoder.decode(TargetsReply.self, from: await desk.answer(.targets))
            #expect(after.targets.first { $0.target == "fittrackee" }?.state == "reconnect", "the phone and the CLI say reconnect")
        }
    }

    /// The positions (arrays of two or three numbers) anywhere in a GeoJSON answer.
    static func positions(_ json: JSONValue?) -> Int {
        switch json {
        case let .array(items)?:
            if (2...3).contains(items.count), items.allSatisfy({ if case .number = $0 { true } else { false } }) { return 1 }
            return items.reduce(0) { $0 + positions($1) }
        case let .object(members)?: return members.values.reduce(0) { $0 + positions($1) }
        default: return 0
        }
    }
}
