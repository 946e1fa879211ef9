import AsyncHTTPClient
import Foundation
import MoonRunnerTestSupport
import Testing
@testable import MoonRunnerUpload

/// A real WebDAV server, PyPI's wsgidav (RFC 4918 class 1 and 2), on a
/// loopback port with one user over HTTP Basic, serving a folder the test reads.
final class DAVServer: @unchecked Sendable {
    let dir: String
    let root: String
    let port: Int
    let child: Child

    init() async throws {
        guard let wsgidav = ServerTools.wsgidav else { throw SpawnError("wsgidav is not installed") }
        dir = try ServerTools.scratch("dav")
        root = dir + "/files"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        port = try ServerTools.freePort()
        let config = """
            host: 127.0.0.1
            port: \(port)
            provider_mapping:
              /dav: \(root)
            simple_dc:
              user_mapping:
                '*':
                  runner:
                    password: s3cret
            http_authenticator:
              accept_basic: true
              accept_digest: false
              default_to_digest: false
            verbose: 1
            logging:
              enable_loggers: []
            """
        try config.write(toFile: dir + "/wsgidav.yaml", atomically: true, encoding: .utf8)
        child = try Child(wsgidav, ["--config", dir + "/wsgidav.yaml"], log: URL(fileURLWithPath: dir + "/wsgidav.log"))
        try await ServerTools.waitListening(port, child, timeout: 20)
    }

    deinit {
        child.signal(SIGKILL)
        _ = child.wait(timeout: 5)
        try? FileManager.default.removeItem(atPath: dir)
    }

    func settings(folder: String, gpx: Bool = false) -> TargetSettings {
        var s = TargetSettings(privacyZones: true, url: "http://127.0.0.1:\(port)/dav/\(folder)")
        s.gpx = gpx
        return s
    }

    func files(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []).sorted()
    }

    func stored(_ folder: String, _ name: String) -> Data? { FileManager.default.contents(atPath: root + "/" + folder + "/" + name) }
}

@Suite("WebDAV target against a real server (wsgidav)", .serialized,
       .enabled(if: ServerTools.davReady, "wsgidav and cheroot are not installed: pip install wsgidav cheroot (MOONRUNNER_UPLOAD_VENV)"))
struct WebDAVServerTests {
    static let login = Credential(fields: ["user": "runner", "password": "s3cret"], connectedAt: 0)

    @Test("the FIT and the GPX go into a folder made on the way, each byte for byte as exported")
    func putsFiles() async throws {
        let server = try await DAVServer()
        try await withHTTP { http in
            let target = WebDAVTarget(http: http, settings: server.settings(folder: "runs", gpx: true))
            let run = RunFile(id: 1, start: 1_795_860_900)
            let a = ServerAttempt(.webdav, session: 1, run: run, credential: Self.login)
            let outcome = try await target.send(a.attempt)
            let fit = "moonrunner-20261128-101500-1.fit"
            #expect(outcome == .done(id: fit, url: "http://127.0.0.1:\(server.port)/dav/runs/\(fit)"))
            #expect(server.files("runs") == ["moonrunner-20261128-101500-1.fit", "moonrunner-20261128-101500-1.gpx"])
            #expect(server.stored("runs", fit) == run.fit)
            #expect(server.stored("runs", "moonrunner-20261128-101500-1.gpx") == run.gpx)
        }
    }

    @Test("sent again after a lost answer, the file is written over: one copy, the same bytes")
    func sameNameOnce() async throws {
        let server = try await DAVServer()
        try await withHTTP { http in
            let target = WebDAVTarget(http: http, settings: server.settings(folder: "runs"))
            let run = RunFile(id: 2, start: 1_795_864_500)
            let a = ServerAttempt(.webdav, session: 2, run: run, credential: Self.login)
            #expect(try await target.find(a.attempt) == nil, "WebDAV has nothing to look for: a PUT again is harmless")
            _ = try await target.send(a.attempt)
            _ = try await target.send(a.attempt)
            #expect(server.files("runs") == ["moonrunner-20261128-111500-2.fit"])
            #expect(server.stored("runs", "moonrunner-20261128-111500-2.fit") == run.fit)
        }
    }

    @Test("a wrong app password is a refused credential that says to reconnect")
    func wrongPassword() async throws {
        let server = try await DAVServer()
        try await withHTTP { http in
            let target = WebDAVTarget(http: http, settings: server.settings(folder: "runs"))
            let wrong = Credential(fields: ["user": "runner", "password": "old"], connectedAt: 0)
            let a = ServerAttempt(.webdav, session: 3, run: RunFile(id: 3, start: 1_795_868_100), credential: wrong)
            await #expect(throws: UploadFailure.refused("WebDAV refused the credential (401); reconnect WebDAV")) {
                try await target.send(a.attempt)
            }
            #expect(server.files("runs").isEmpty)
        }
    }

    @Test("the queue sends a finished session to the real folder once, and keeps where it is")
    func throughQueue() async throws {
        let server = try await DAVServer()
        try await withHTTP { http in
            let dir = try ServerTools.scratch("dav-ledger")
            let ledger = try Ledger(directory: dir)
            try ledger.setCredential(.webdav, Self.login)
            let source = FakeSource()
            let run = RunFile(id: 4, start: 1_795_871_700)
            await source.add(4, run.fit)
            var settings = UploadSettings()
            settings.targets[.webdav] = server.settings(folder: "queue")
            let queue = UploadQueue(ledger: ledger, settings: settings,
                                    targets: [WebDAVTarget(http: http, settings: server.settings(folder: "queue"))],
                                    source: source, now: { 1_800_000_000 })
            await queue.catchUp()
            await queue.workDue()
            await queue.workDue()
            let job = try #require(try ledger.job(.webdav, 4))
            #expect(job.state == .done)
            #expect(job.attempts == 1)
            #expect(server.files("queue").count == 1)
            let name = try #require(server.files("queue").first)
            #expect(server.stored("queue", name) == run.fit)
            #expect(job.remoteURL?.hasSuffix("/dav/queue/\(name)") == true)
        }
    }
}
