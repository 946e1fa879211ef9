import Foundation
import Testing
@testable import MoonRunnerUpload

@Suite("Upload ledger: what survives a restart, so nothing is sent twice")
struct LedgerTests {
    static func directory() -> String { NSTemporaryDirectory() + "ledger-\(UUID().uuidString)" }

    @Test("a session is queued once per target, also after the ledger is opened again")
    func enqueueOnce() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let job = UploadJob(target: .strava, session: 7, startTime: 1_800_000_000, activity: "run", at: 1_800_000_100)
        #expect(try Ledger(directory: dir).enqueue(job))
        let reopened = try Ledger(directory: dir)
        #expect(try !reopened.enqueue(job))
        var other = job
        other.target = .webdav
        #expect(try reopened.enqueue(other), "another target is another job")
        #expect(try reopened.jobs().count == 2)
    }

    @Test("a job written `sending` before its request is in doubt after a restart, with what a poll needs")
    func sendingSurvives() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var job = UploadJob(target: .strava, session: 3, startTime: 1_800_000_000, activity: "run", at: 1_800_000_100)
        try Ledger(directory: dir).enqueue(job)
        job.state = .sending
        job.attempts = 1
        job.pending = "16486788"
        try Ledger(directory: dir).save(job)
        let back = try #require(try Ledger(directory: dir).job(.strava, 3))
        #expect(back.inDoubt)
        #expect(back == job)
        #expect(try Ledger(directory: dir).openJobs().map(\.session) == [3])
    }

    @Test("finished jobs are not worked again: done, failed, deleted, empty and held are closed")
    func closedStates() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ledger = try Ledger(directory: dir)
        for (i, state) in JobState.allCases.enumerated() {
            var job = UploadJob(target: .intervals, session: Int64(i), startTime: 0, activity: "run", at: 0)
            job.state = state
            try ledger.save(job)
        }
        #expect(Set(try ledger.openJobs().map(\.state)) == [.queued, .sending, .processing])
    }

    @Test("the ledger file is its user's only, and a credential comes back as it was kept")
    func secrets() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ledger = try Ledger(directory: dir)
        let c = Credential(fields: ["refresh_token": "r2", "client_secret": "s"], connectedAt: 5, account: "Ada")
        try ledger.setCredential(.strava, c)
        #expect(try Ledger(directory: dir).credential(.strava) == c)
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/upload.sqlite")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try ledger.setCredential(.strava, nil)
        #expect(try ledger.credential(.strava) == nil)
    }

    @Test("an authorisation's state works once")
    func grantOnce() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ledger = try Ledger(directory: dir)
        try ledger.saveGrant(state: "s1", ["target": "fittrackee", "verifier": "v"])
        #expect(try ledger.takeGrant(state: "s1") == ["target": "fittrackee", "verifier": "v"])
        #expect(try ledger.takeGrant(state: "s1") == nil)
    }
}
