import Testing
@testable import MoonRunnerUpload

@Suite("Upload: what a job becomes after an attempt")
struct JobStepTests {
    static let now = 1_800_000_000.0
    static func sending(attempts: Int) -> UploadJob {
        var j = UploadJob(target: .strava, session: 4, startTime: 0, activity: "run", at: now - 100)
        j.state = .sending
        j.attempts = attempts
        return j
    }

    @Test("done keeps the service's id and link and forgets the pending upload")
    func done() {
        var j = Self.sending(attempts: 2)
        j.pending = "u1"
        let after = JobStep.after(.done(id: "a9", url: "https://www.strava.com/activities/a9"), job: j, at: Self.now)
        #expect(after.state == .done && after.remoteID == "a9" && after.pending == nil)
        #expect(after.remoteURL == "https://www.strava.com/activities/a9")
    }

    @Test("a file still being read is asked about after 2 s, then 4, 8… as the polls add up")
    func processing() {
        let first = JobStep.after(.processing(pending: "u1"), job: Self.sending(attempts: 1), at: Self.now)
        #expect(first.state == .processing && first.pending == "u1" && first.nextAt == Self.now + 2)
        var polled = first
        polled.attempts = 3
        #expect(JobStep.after(.processing(pending: "u1"), job: polled, at: Self.now).nextAt == Self.now + 16)
    }

    @Test("no answer or a 5xx waits with back-off and stays in doubt; at the last attempt the job fails")
    func retries() {
        let p = RetryPolicy()
        let third = JobStep.after(.server("Strava failed (502)"), job: Self.sending(attempts: 3), policy: p, maxAttempts: 40, at: Self.now)
        #expect(third.state == .sending, "in doubt: the next attempt looks before it sends")
        #expect(third.nextAt == Self.now + 20)
        let last = JobStep.after(.network("no answer in time"), job: Self.sending(attempts: 40), policy: p, maxAttempts: 40, at: Self.now)
        #expect(last.state == .failed)
        #expect(last.lastError == "no answer in time (gave up after 40 attempts)")
    }

    @Test("a refused credential holds the job, a refused file fails it, a rate limit waits for the moment named")
    func refusals() {
        let p = RetryPolicy(), j = Self.sending(attempts: 1)
        #expect(JobStep.after(.refused("reconnect Strava"), job: j, policy: p, maxAttempts: 40, at: Self.now).state == .held)
        #expect(JobStep.after(.rejected("Improper FIT file"), job: j, policy: p, maxAttempts: 40, at: Self.now).state == .failed)
        let limited = JobStep.after(.rateLimited(until: Self.now + 800, "spent"), job: j, policy: p, maxAttempts: 40, at: Self.now)
        #expect(limited.nextAt == Self.now + 800 && limited.state == .sending)
    }
}
