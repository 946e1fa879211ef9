import Foundation
import MoonRunnerProtocol
import MoonRunnerTestSupport
@testable import MoonRunnerUpload

/// Tests/Tools/strava_standin.py on a loopback port: Strava's OAuth, uploads,
/// processing states, duplicate error, rate limits and faults as its header
/// lists them from Strava's documentation. Started per test, killed after.
final class StravaStandin: @unchecked Sendable {
    let dir: String
    let port: Int
    let child: Child

    init(tokenLife: Double = 21_600, processing: Double = 0.3, limit: String = "200,2000",
         readLimit: String = "100,1000") async throws {
        guard let python = ServerTools.python else { throw SpawnError("python3 is not installed") }
        dir = try ServerTools.scratch("strava")
        port = try ServerTools.freePort()
        child = try Child(python, [ServerTools.tools + "/strava_standin.py", "--port", String(port), "--token-life", String(tokenLife),
                                   "--processing", String(processing), "--limit", limit, "--read-limit", readLimit],
                          log: URL(fileURLWithPath: dir + "/strava.log"))
        try await ServerTools.waitListening(port, child, timeout: 20)
    }

    deinit {
        child.signal(SIGKILL)
        _ = child.wait(timeout: 5)
        try? FileManager.default.removeItem(atPath: dir)
    }

    var base: String { "http://127.0.0.1:\(port)" }

    var settings: TargetSettings {
        TargetSettings(privacyZones: false, url: base, authorizeURL: base + "/oauth/authorize")
    }

    /// Orders faults (`{"fail":[500]}`, `{"drop_after":1}`, `{"slow":3}`, `{"revoke":true}`).
    func control(_ spec: String, _ http: HTTP) async throws {
        let r = try await http.send(.POST, base + "/_control", headers: [("Content-Type", "application/json")], body: Array(spec.utf8))
        guard r.status == 200 else { throw SpawnError("control: \(r.status)") }
    }

    /// The activities Strava made, each with what its FIT says, and the number of uploads taken.
    func stored(_ http: HTTP) async throws -> (activities: [JSONValue], uploads: Int) {
        let json = try await http.send(.GET, base + "/_stored").json
        return (json?["activities"]?.list ?? [], Int(json?["uploads"]?.double ?? -1))
    }

    /// The wearer's "Connect Strava": the browser sent to Strava's authorization,
    /// its redirect's code exchanged for tokens as the upload service does.
    func connect(_ http: HTTP, now: Double = Date().timeIntervalSince1970) async throws -> Credential {
        let redirect = "http://pi.local:8080/uploads/callback"
        let url = StravaTarget.authorizeURL(settings, clientID: "12345", redirect: redirect, state: "st4te")
        let answer = try await http.send(.GET, url)
        guard answer.status == 302, let location = answer.headers.first(name: "Location"),
              let query = location.split(separator: "?", maxSplits: 1).last else {
            throw SpawnError("no redirect from the authorization: \(answer.status)")
        }
        let q = URLText.parameters(query)
        guard q["state"] == "st4te", let code = q["code"], StravaTarget.granted(q["scope"] ?? "") else {
            throw SpawnError("the redirect lacks the state, the code or activity:write: \(location)")
        }
        let app = Credential(fields: ["client_id": "12345", "client_secret": "s3cret"], connectedAt: now)
        return try await OAuth.exchange(code: code, tokenURL: base + "/oauth/token", credential: app, http: http,
                                        service: "Strava", now: now).0
    }
}

/// Works a queue until the job of `session` is closed (done, failed, held…) or `timeout` s pass.
func settle(_ queue: UploadQueue, _ ledger: Ledger, _ kind: TargetKind, _ session: Int64, timeout: Double = 30) async throws -> UploadJob? {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        await queue.workDue()
        if let job = try ledger.job(kind, session), !job.state.isOpen { return job }
        try await Task.sleep(for: .milliseconds(100))
    }
    return try ledger.job(kind, session)
}
