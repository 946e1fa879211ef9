import Foundation
import MoonRunnerProtocol
import MoonRunnerTestSupport
import MoonRunnerWeb
import Testing
@testable import MoonRunnerUpload

/// Tests/Tools/intervals_standin.py on a loopback port (its header lists the
/// documented behaviour it follows): athlete i42, API key k3y.
final class IntervalsStandin: @unchecked Sendable {
    let dir: String
    let port: Int
    let child: Child

    init() async throws {
        guard let python = ServerTools.python else { throw SpawnError("python3 is not installed") }
        dir = try ServerTools.scratch("intervals")
        port = try ServerTools.freePort()
        child = try Child(python, [ServerTools.tools + "/intervals_standin.py", "--port", String(port), "--athlete", "i42", "--key", "k3y"],
                          log: URL(fileURLWithPath: dir + "/intervals.log"))
        try await ServerTools.waitListening(port, child, timeout: 20)
    }

    deinit {
        child.signal(SIGKILL)
        _ = child.wait(timeout: 5)
        try? FileManager.default.removeItem(atPath: dir)
    }

    var settings: TargetSettings { TargetSettings(privacyZones: true, url: "http://127.0.0.1:\(port)") }

    func control(_ spec: String, _ http: HTTP) async throws {
        _ = try await http.send(.POST, settings.url + "/_control", headers: [("Content-Type", "application/json")], body: Array(spec.utf8))
    }

    func activities(_ http: HTTP) async throws -> [JSONValue] {
        try await http.send(.GET, settings.url + "/_stored").json?["activities"]?.list ?? []
    }

    /// A queue over a fresh ledger with the athlete's key; retries after 0.2 s.
    func queue(_ http: HTTP, key: String = "k3y") throws -> (UploadQueue, Ledger, FakeSource) {
        let ledger = try Ledger(directory: try ServerTools.scratch("intervals-ledger"))
        try ledger.setCredential(.intervals, Credential(fields: ["athlete_id": "i42", "api_key": key], connectedAt: 1))
        var s = UploadSettings()
        s.targets[.intervals] = settings
        s.firstWait = 0.2
        s.longestWait = 1
        let source = FakeSource()
        return (UploadQueue(ledger: ledger, settings: s, targets: [IntervalsTarget(http: http, settings: settings)], source: source),
                ledger, source)
    }
}

@Suite("intervals.icu target against the stand-in of its documented API", .serialized,
       .enabled(if: ServerTools.python != nil, "python3 is not installed"))
struct IntervalsStandinTests {
    @Test("the FIT goes up with HTTP Basic API_KEY, its name and external_id; the activity is the session's")
    func upload() async throws {
        let intervals = try await IntervalsStandin()
        try await withHTTP { http in
            let (queue, ledger, source) = try intervals.queue(http)
            let run = RunFile(id: 1, start: 1_795_860_900)
            await source.add(1, run.fit)
            await queue.catchUp()
            let job = try #require(try await settle(queue, ledger, .intervals, 1))
            let stored = try await intervals.activities(http)
            #expect(job.state == .done)
            #expect(stored.count == 1)
            #expect(job.remoteID == stored.first?["id"]?.text)
            #expect(stored.first?["external_id"]?.text == "moonrunner-1-1795860900")
            #expect(stored.first?["name"]?.text?.hasPrefix("MoonRunner ") == true)
            #expect(stored.first?["sha256"]?.text == Digest.hex(Digest.sha256(Array(run.fit))), "the file is the export byte for byte")
            #expect(stored.first?["points"]?.double == Double(run.points))
        }
    }

    @Test("the connection dropped after the upload was taken: the retry finds it by external_id and sends nothing")
    func droppedAfter() async throws {
        let intervals = try await IntervalsStandin()
        try await withHTTP { http in
            let (queue, ledger, source) = try intervals.queue(http)
            try await intervals.control(#"{"drop_after": 1}"#, http)
            await source.add(2, RunFile(id: 2, start: 1_795_864_500).fit)
            await queue.catchUp()
            let job = try #require(try await settle(queue, ledger, .intervals, 2))
            #expect(job.state == .done)
            #expect(try await intervals.activities(http).count == 1)
            #expect(job.attempts == 1, "the second attempt only looked")
        }
    }

    @Test("a wrong API key holds the target: \"reconnect intervals.icu\"")
    func wrongKey() async throws {
        let intervals = try await IntervalsStandin()
        try await withHTTP { http in
            let (queue, ledger, source) = try intervals.queue(http, key: "old")
            await source.add(3, RunFile(id: 3, start: 1_795_868_100).fit)
            await queue.catchUp()
            let job = try #require(try await settle(queue, ledger, .intervals, 3))
            #expect(job.state == .held)
            #expect(job.lastError?.contains("reconnect intervals.icu") == true, "\(job.lastError ?? "")")
            #expect(try await intervals.activities(http).isEmpty)
        }
    }
}
