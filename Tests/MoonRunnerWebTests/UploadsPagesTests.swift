import Foundation
import HummingbirdTesting
import MoonRunnerCore
import MoonRunnerProtocol
@testable import MoonRunnerUpload
import MoonRunnerWeb
import Testing

/// The upload service in-process: each line the web app sends is answered by
/// a real `UploadDesk` over a ledger in a private folder (no socket, no network).
struct DeskLink: DaemonLink {
    let desk: UploadDesk

    func converse(_ lines: [String], silence: Duration, receive: (String) async throws -> Bool) async throws {
        for line in lines {
            let reply: String
            do {
                reply = await desk.answer(try UploadRequest.parse(line))
            } catch {
                reply = ReplyEncoder.line(ErrorReply(error))
            }
            if try await !receive(reply) { return }
        }
        throw DaemonLinkError.closed
    }
}

/// No sessions: the pages' tests put what they need in the ledger.
struct NoSessions: SessionSource {
    func sessions(limit: Int) async throws -> [SessionInfo] { [] }
    func export(session: Int64, format: String, zones: [PrivacyZone]) async throws -> ExportResult { .deleted }
    func watch(_ stopped: @escaping @Sendable () async -> Void) async {}
}

/// A ledger and a desk the web app's uploads pages talk to.
struct UploadService {
    let ledger: Ledger
    let desk: UploadDesk

    init() throws {
        ledger = try Ledger(directory: NSTemporaryDirectory() + "web-uploads-\(UUID().uuidString)")
        let settings = UploadSettings()
        let queue = UploadQueue(ledger: ledger, settings: settings, targets: [], source: NoSessions(), now: { 1_800_000_000 })
        desk = UploadDesk(queue: queue, ledger: ledger, settings: settings, http: HTTP(client: .shared), now: { 1_800_000_000 })
    }

    func job(_ kind: TargetKind, _ session: Int64, _ state: JobState, url: String? = nil, error: String? = nil) throws {
        var job = UploadJob(target: kind, session: session, startTime: 1_799_990_000, activity: "run", at: 1_799_999_000)
        job.state = state
        job.remoteURL = url
        job.lastError = error
        try ledger.save(job)
    }
}

@Suite("Web app: the uploads page over the upload service")
struct UploadsPagesTests {
    @Test("each target's connection and each session's upload are shown, with a link to the activity and no secret")
    func page() async throws {
        let service = try UploadService()
        try service.ledger.setCredential(.intervals, Credential(fields: ["athlete_id": "i42", "api_key": "k3y-s3cret"], connectedAt: 1))
        try service.job(.intervals, 7, .done, url: "https://intervals.icu/activities/i9")
        try service.job(.strava, 7, .failed, error: "Strava could not read the file")
        let web = try TestWeb(uploads: DeskLink(desk: service.desk))
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/uploads", cookie: cookie) { response in
                let html = String(buffer: response.body)
                #expect(response.status == .ok)
                #expect(html.contains("data-target=\"intervals\"") && html.contains("Connected"), "intervals.icu shows as connected")
                #expect(html.contains("href=\"https://intervals.icu/activities/i9\""), "the uploaded session links to its activity")
                #expect(html.contains("Strava could not read the file"), "a failed upload says why")
                #expect(html.contains("data-action=\"retry\""), "a failed upload can be retried")
                #expect(!html.contains("k3y-s3cret"), "the API key is never shown back")
            }
        }
    }

    @Test("a refused credential says \"Reconnect Strava\" on the phone")
    func reconnect() async throws {
        let service = try UploadService()
        try service.ledger.setCredential(.strava, Credential(fields: ["refresh_token": "r", "client_id": "1", "client_secret": "s"],
                                                             connectedAt: 1, refused: "Strava refused the credential (401); reconnect Strava"))
        let web = try TestWeb(uploads: DeskLink(desk: service.desk))
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/uploads", cookie: cookie) { response in
                #expect(String(buffer: response.body).contains("Reconnect Strava"))
            }
        }
    }

    @Test("Retry on the phone queues a failed upload again")
    func retry() async throws {
        let service = try UploadService()
        try service.job(.webdav, 3, .failed, error: "WebDAV failed (507)")
        let web = try TestWeb(uploads: DeskLink(desk: service.desk))
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            let csrf = try await client.csrf("/uploads", cookie: cookie)
            try await client.post("/uploads/retry", ["csrf": csrf, "target": "webdav", "session": "3"], cookie: cookie) { response in
                #expect(response.status == .seeOther)
            }
        }
        #expect(try service.ledger.job(.webdav, 3)?.state == .queued)
    }

    @Test("Connect Strava sends the browser to Strava's authorization, asking activity:write, back to /uploads/callback")
    func connect() async throws {
        let service = try UploadService()
        _ = await service.desk.answer(.setup(target: "strava", fields: ["client_id": "12345", "client_secret": "s3cret"]))
        let web = try TestWeb(uploads: DeskLink(desk: service.desk))
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/uploads/connect/strava", cookie: cookie) { response in
                let location = response.headers[.location] ?? ""
                #expect(response.status == .seeOther)
                #expect(location.hasPrefix("https://www.strava.com/oauth/authorize?client_id=12345"))
                #expect(location.contains("scope=activity%3Awrite"))
                #expect(location.contains("redirect_uri=http%3A%2F%2Flocalhost%2Fuploads%2Fcallback"))
            }
            try await client.get("/uploads/callback?state=forged&code=c&scope=read,activity:write", cookie: cookie) { response in
                #expect(response.status == .forbidden, "a state the service did not hand out is refused")
            }
        }
    }

    @Test("with the upload service down the page says so with a 503")
    func down() async throws {
        let web = try TestWeb(uploads: DownLink())
        try await web.test { client in
            let cookie = try await client.pair(web.devices)
            try await client.get("/uploads", cookie: cookie) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("The upload service is not running"))
            }
        }
    }
}
